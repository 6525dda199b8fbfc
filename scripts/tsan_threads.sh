#!/usr/bin/env bash
# The threading tests under ThreadSanitizer: predictor clones running in 8 threads (200 runs
# each, outputs bitwise equal to one thread's), the executor's concurrent runs and the
# device-context pool. Builds only those tests in build-tsan/ (ccache makes a rebuild cheap)
# and fails on the first report. CI runs it after scripts/test.sh.
#
# OpenMP's own synchronisation (libgomp) is not instrumented, so code inside an OpenMP
# parallel region with more than one thread gives false reports; these tests run their
# kernels with one thread per predictor or executor, and of platform_test only the context
# pool and oneDNN context tests run (the others time OpenMP's ParallelFor).
set -euo pipefail
cd "$(dirname "$0")/.."
export SANITIZE=thread
source scripts/sanitize_env.sh
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
export CCACHE_BASEDIR="$PWD"
TESTS=(predictor_test executor_test platform_test)
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release $CMAKE_ARGS >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target "${TESTS[@]}"
"$BUILD_DIR/tests/predictor_test"
"$BUILD_DIR/tests/executor_test"
"$BUILD_DIR/tests/platform_test" --gtest_filter='DeviceContextPool.*:OneDNNContext.*'
echo "tsan_threads: no ThreadSanitizer report"
