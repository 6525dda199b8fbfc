#!/usr/bin/env bash
# Runs `paddle_like run` on thousands of damaged copies of the real models in ../shared/models
# (programs, parameters and feeds; see tests/fuzz/mutation_sweep.cc for the mutations) and
# fails if any case crashes, hangs, ends in an internal error or a sanitizer report.
#
#   scripts/mutation_sweep.sh                      # 4000 cases, seed 1, the Release build
#   scripts/mutation_sweep.sh --cases 500 --seed 3
#   scripts/mutation_sweep.sh --sanitize=address   # the same against the ASan+UBSan build
#                                                  # (--sanitize=thread: the TSan build)
# Other arguments go to mutation_sweep (--model NAME, --jobs J, --timeout S, --work DIR).
set -euo pipefail
cd "$(dirname "$0")/.."

SANITIZE=""
ARGS=()
for arg in "$@"; do
  case "$arg" in
    --sanitize=*) SANITIZE="${arg#--sanitize=}" ;;
    *) ARGS+=("$arg") ;;
  esac
done

source scripts/sanitize_env.sh
MEM_LIMIT=(--mem-limit-mb 6144)
# Sanitizers reserve terabytes of address space: the sweep caps allocations instead.
[[ -n "$SANITIZE" ]] && MEM_LIMIT=(--mem-limit-mb 0)
BUILD="${BUILD_DIR:-build}"
scripts/setup.sh
"$BUILD/tests/fuzz/mutation_sweep" --paddle-like "$BUILD/bin/paddle_like" \
    --models ../shared/models --cases 4000 --seed 1 --work "$BUILD/mutation_sweep" \
    "${MEM_LIMIT[@]}" ${ARGS[@]+"${ARGS[@]}"}
