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

source scripts/sanitize_env.sh
scripts/setup.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j"$(nproc)" ${CTEST_ARGS[@]+"${CTEST_ARGS[@]}"}
