#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, AddressSanitizer + UBSan, coverage) in
# build-asan/ and runs them.
#   scripts/fuzz.sh                    # every target, 60 s each
#   scripts/fuzz.sh npy 600            # fuzz_npy for 600 s
#   scripts/fuzz.sh all 7200           # every target, 2 hours each
#   FUZZ_JOBS=2 scripts/fuzz.sh ...    # libFuzzer workers per target
# Each run seeds build-asan/corpus/<target>/ from the fixtures (tests/fixtures, examples/,
# ../shared/models) and keeps what the corpus grew to. A crash, leak, timeout (10 s per
# input), allocation over 2 GB or RSS over 4 GB stops the run, leaves the input under
# build-asan/findings/<target>/ and fails the script. The last line per target gives the
# executions and the corpus size (also in build-asan/fuzz_summary.txt). Targets that run a
# model of ../shared/models are skipped where that folder is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET="${1:-all}"
SECONDS_EACH="${2:-60}"
JOBS="${FUZZ_JOBS:-1}"

if [[ "$TARGET" == all ]]; then
  TARGETS=()
  for f in tests/fuzz/fuzz_*.cc; do TARGETS+=("$(basename "$f" .cc)"); done
else
  TARGETS=("fuzz_${TARGET#fuzz_}")
fi
# The clang AddressSanitizer + UBSan tree that scripts/test.sh --sanitize=address also uses.
export SANITIZE=address
source scripts/sanitize_env.sh
BUILD="$BUILD_DIR"
SETUP_TARGETS="${TARGETS[*]}" bash scripts/setup.sh

# The runtime's leaks only: protobuf's and glog's process-lifetime singletons are not ours.
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
: > "$BUILD/fuzz_summary.txt"
for t in "${TARGETS[@]}"; do
  corpus="$BUILD/corpus/$t"
  findings="$BUILD/findings/$t"
  mkdir -p "$corpus" "$findings"
  log="$BUILD/fuzz_$t.log"
  echo "fuzz: $t for ${SECONDS_EACH}s"
  parallel=()
  # More than one worker: libFuzzer's fork mode, which survives a finding and goes on.
  ((JOBS > 1)) && parallel=(-fork="$JOBS" -ignore_crashes=0)
  rc=0
  PL_FUZZ_SEED_DIR="$corpus" "$BUILD/tests/fuzz/$t" "$corpus" \
    -max_total_time="$SECONDS_EACH" -timeout=10 -malloc_limit_mb=2048 -rss_limit_mb=4096 \
    -max_len=65536 -print_final_stats=1 ${parallel[@]+"${parallel[@]}"} \
    -error_exitcode=1 -timeout_exitcode=1 \
    -artifact_prefix="$findings/" >"$log" 2>&1 || rc=$?
  # A target whose model (../shared/models) is absent exits with 77 after printing the
  # marker; libFuzzer's own exit codes are set to 1 above, so that a finding is never
  # mistaken for a skip.
  if ((rc == 77)) && grep -q "^fuzz: skipped:" "$log"; then
    grep -m1 "^fuzz: skipped:" "$log" | sed "s/^fuzz: /fuzz: $t /"
    echo "$t: skipped" >> "$BUILD/fuzz_summary.txt"
    continue
  elif ((rc != 0)); then
    echo "fuzz: $t FAILED; the input is under $findings/ (log: $log)"
    grep -E "ERROR|SUMMARY|==[0-9]+==|Test unit written" "$log" | head -20 || true
    status=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s+=$2} END {print s+0}')
  files=$(find "$corpus" -type f | wc -l)
  line="$t: $execs executions in ${SECONDS_EACH}s, corpus $files inputs"
  echo "fuzz: $line"
  echo "$line" >> "$BUILD/fuzz_summary.txt"
done
exit $status
