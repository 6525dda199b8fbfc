#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the main job: a demo program through
# `paddle_like run`, printing the fetched result.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BIN="${BUILD_DIR:-build}/bin/paddle_like"
OUT="${BUILD_DIR:-build}/demo_out"
echo "== quadratic: Out = 1*x^2 + 2*x + 3 on x = [[1, 2], [3, 4]]"
"$BIN" run --program examples/quadratic.pbtxt --feed x=examples/quadratic_x.npy --out "$OUT"
