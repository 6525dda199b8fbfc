#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the whole test suite.
#   scripts/test.sh                     # all tests
#   scripts/test.sh -L quick            # the quick edit-loop subset (extra args go to ctest)
#   scripts/test.sh --sanitize=address  # all tests under AddressSanitizer + UBSan (build-asan/)
#   scripts/test.sh --sanitize=thread   # under ThreadSanitizer (build-tsan/)
# A sanitized build is a Release build with line tables, without CUDA and benchmarks, in its
# own directory; every sanitizer report fails the test that caused it.
set -euo pipefail
cd "$(dirname "$0")/.."

SANITIZE=""
CTEST_ARGS=()
for arg in "$@"; do
  case "$arg" in
    --sanitize=*) SANITIZE="${arg#--sanitize=}" ;;
    --sanitize) SANITIZE=address ;;
    *) CTEST_ARGS+=("$arg") ;;
  esac
done

case "$SANITIZE" in
  "") ;;
  address)
    export BUILD_DIR="${BUILD_DIR:-build-asan}"
    # Large allocations that a test expects to fail must fail with an error, not abort.
    export ASAN_OPTIONS="${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1:abort_on_error=0}"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
    ;;
  thread)
    export BUILD_DIR="${BUILD_DIR:-build-tsan}"
    export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"
    ;;
  *) echo "test.sh: --sanitize takes address or thread, not '$SANITIZE'" >&2; exit 2 ;;
esac
if [[ -n "$SANITIZE" ]]; then
  export CMAKE_ARGS="-DPL_SANITIZE=$SANITIZE -DWITH_GPU=OFF -DWITH_BENCHMARKS=OFF ${CMAKE_ARGS:-}"
fi

scripts/setup.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j"$(nproc)" ${CTEST_ARGS[@]+"${CTEST_ARGS[@]}"}
