#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the whole test suite.
#   scripts/test.sh           # all tests
#   scripts/test.sh -L quick  # the quick edit-loop subset (extra args go to ctest)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j"$(nproc)" "$@"
