# Sourced by scripts/test.sh, scripts/fuzz.sh, scripts/tsan_threads.sh and
# scripts/mutation_sweep.sh: for SANITIZE=address or thread, points BUILD_DIR at the sanitized
# build, adds its CMake options (and the packages it needs beyond scripts/setup.sh's) and
# sets the sanitizer's runtime options. Every report stops the program, so the run that
# caused it fails. The address build uses clang, so that the fuzz targets (libFuzzer) build
# in the same tree as the tests: scripts/fuzz.sh and scripts/test.sh --sanitize=address
# configure it alike and share its objects.
case "${SANITIZE:-}" in
  "") return 0 ;;
  address)
    export BUILD_DIR="${BUILD_DIR:-build-asan}"
    # Large allocations that a test expects to fail must fail with an error, not abort.
    export ASAN_OPTIONS="${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1:abort_on_error=0}"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
    export EXTRA_PACKAGES="clang libclang-rt-14-dev ${EXTRA_PACKAGES:-}"
    export CMAKE_ARGS="-DCMAKE_CXX_COMPILER=clang++ ${CMAKE_ARGS:-}"
    ;;
  thread)
    export BUILD_DIR="${BUILD_DIR:-build-tsan}"
    export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"
    ;;
  *) echo "--sanitize takes address or thread, not '$SANITIZE'" >&2; exit 2 ;;
esac
export CMAKE_ARGS="-DPL_SANITIZE=$SANITIZE -DWITH_GPU=OFF -DWITH_BENCHMARKS=OFF ${CMAKE_ARGS:-}"
