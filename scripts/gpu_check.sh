#!/usr/bin/env bash
# Runs the GPU checks from a bundle made by scripts/gpu_bundle.sh on a machine with an NVIDIA
# GPU, writing every log to OUT_DIR and a summary to stdout:
#   1. the CUDA kernel tests (every CUDA kernel against the CPU kernel on the same inputs),
#      the real models of ../shared/models through a GPU predictor against a CPU one, and
#      PaddlePaddle's op and model fixtures run by a GPU predictor;
#   2. LeNet trained on the GPU and on the CPU (digits), and two runs under
#      FLAGS_cudnn_deterministic compared bit for bit;
#   3. LeNet epochs against PyTorch on the same GPU (tests/benchmarks/train_vs_pytorch.py),
#      when python3 has torch;
#   4. saved models through a GPU predictor and a CPU one (`paddle_like bench`), and the CUDA
#      kernels against the bare cuBLAS/cuDNN calls (cuda_vs_library_benchmark);
#   5. the kernel tests again under compute-sanitizer (memcheck), when it is installed and
#      GPU_CHECK_MEMCHECK is not 0 (the memcheck runs take longer than everything else).
#
#   [GPU_CHECK_MEMCHECK=0] [GPU_CHECK_PER_CASE=0] [GPU_CHECK_BENCH_FILTER=REGEX] [GPU_CHECK_TORCH_ROUNDS=N] \
#     scripts/gpu_check.sh BUNDLE.tar.xz|BUNDLE_DIR OUT_DIR
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUNDLE="$(realpath "$1")"
OUT="$(realpath -m "$2")"
mkdir -p "$OUT"
B="$(mktemp -d)"
# BUNDLE is one archive, or a folder of the parts that gpu_bundle.sh writes.
if [[ -d $BUNDLE ]]; then
  for part in "$BUNDLE"/*.tar.xz; do tar -C "$B" -xJf "$part"; done
else
  tar -C "$B" -xJf "$BUNDLE"
fi
summary=()
note() { summary+=("$1"); echo "== $1"; }
counts() {  # The gtest totals of a log, on one line.
  grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$1" | tr '\n' ' '
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader |
  tee "$OUT/gpu.txt"
# CUDA's libraries: the toolkit's, and cuDNN/cuBLAS wherever python wheels put them.
libdirs=()
for lib in libcudnn.so.9 libcublas.so.13 libcublasLt.so.13 libcudart.so.13 libnccl.so.2; do
  found="$(find /usr/local /usr/lib /opt -name "$lib" 2>/dev/null | head -1)"
  [[ -n $found ]] && libdirs+=("$(dirname "$found")")
done
LD_LIBRARY_PATH="$B/lib:$(printf '%s:' "${libdirs[@]}")${LD_LIBRARY_PATH:-}"
export LD_LIBRARY_PATH
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" | tee "$OUT/env.txt"
ldd "$B/bin/cuda_kernel_test" | grep -E "not found|cudnn|cublas|cudart" | tee -a "$OUT/env.txt"

# One process per test case: a crash in one case does not hide the others. With
# GPU_CHECK_PER_CASE=0 each program runs its cases in one process (much faster: CUDA starts
# once), and only a program that crashes is run again case by case.
per_case() {  # per_case PROGRAM: every case in its own process
  local t=$1 c passed=0
  local failed=()
  for c in $("$B/bin/$t" --gtest_list_tests | awk '/^[^ ]/ {s = $1} /^  / {print s $1}'); do
    timeout 120 "$B/bin/$t" --gtest_filter="$c" >>"$OUT/$t.log" 2>&1
    if [[ $? -eq 0 ]]; then passed=$((passed + 1)); else failed+=("$c"); fi
  done
  echo "$passed passed, ${#failed[@]} failed ${failed[*]}"
}
for t in cuda_kernel_test cuda_cudnn_test cuda_conv_transpose_test cuda_norm_dropout_test \
  cuda_interp_lookup_test cuda_detection_test cuda_common_ops_test cuda_collective_test; do
  start=$SECONDS
  if [[ ${GPU_CHECK_PER_CASE:-1} == 0 ]]; then
    timeout 300 "$B/bin/$t" >"$OUT/$t.log" 2>&1
    rc=$?
    if grep -qE '^\[  PASSED  \]' "$OUT/$t.log"; then
      result="exit $rc, $(counts "$OUT/$t.log")$(grep -E '^\[  FAILED  \] [A-Za-z]' \
        "$OUT/$t.log" | awk '{print $3}' | sort -u | tr '\n' ' ')"
    else
      result="crashed (exit $rc), case by case: $(per_case "$t")"
    fi
  else
    result="$(per_case "$t")"
  fi
  note "$t: $result ($((SECONDS - start)) s)"
done

start=$SECONDS
PL_SHARED_MODELS_DIR="$B/models" PL_GOLDENS_DIR="$B/goldens" timeout 200 \
  "$B/bin/cuda_shared_models_test" >"$OUT/shared_models_gpu.log" 2>&1
note "cuda_shared_models_test (../shared/models, GPU against CPU): exit $?, \
$(counts "$OUT/shared_models_gpu.log")($((SECONDS - start)) s)"
grep -E '^\[  FAILED  \] [A-Za-z]' "$OUT/shared_models_gpu.log" | sort -u

start=$SECONDS
PL_TEST_GPU=1 PL_FIXTURES_DIR="$ROOT/tests/fixtures" timeout 200 "$B/bin/paddle_op_fixtures_test" \
  --gtest_output="xml:$OUT/fixtures_gpu.xml" >"$OUT/fixtures_gpu.log" 2>&1
note "paddle_op_fixtures_test on the GPU: exit $?, $(counts "$OUT/fixtures_gpu.log")\
($((SECONDS - start)) s)"
grep -E '^\[  FAILED  \] [A-Za-z]' "$OUT/fixtures_gpu.log" | sort -u | head -60

train() {  # train NAME PLACE EXTRA...: LeNet on digits, 3 epochs
  local name=$1 place=$2
  shift 2
  timeout 90 "$B/bin/paddle_like" train --model lenet --dataset digits --data-dir "$B/datasets/sklearn" \
    --epochs 3 --no-progress --place "$place" --save "$B/model_$name" \
    --report "$OUT/train_$name.json" "$@" >"$OUT/train_$name.log" 2>&1
  local rc=$?
  note "train $name: exit $rc, $(grep -E '^epoch 3' "$OUT/train_$name.log")"
  if [[ $rc -ne 0 ]]; then tail -3 "$OUT/train_$name.log"; fi
}
export FLAGS_paddle_num_threads=4
train gpu gpu --profile "$OUT/profile_gpu.json"
train cpu cpu
FLAGS_cudnn_deterministic=true train gpu_det1 gpu
FLAGS_cudnn_deterministic=true train gpu_det2 gpu
python3 - "$OUT" <<'PY' | tee -a "$OUT/compare.txt"
import json, sys
out = sys.argv[1]
load = lambda n: json.load(open(f"{out}/train_{n}.json"))
try:
    g, c, d1, d2 = (load(n) for n in ("gpu", "cpu", "gpu_det1", "gpu_det2"))
except Exception as e:
    print("compare: missing report:", e); sys.exit(0)
gl, cl = g.get("step_losses", []), c.get("step_losses", [])
n = min(len(gl), len(cl))
diff = max((abs(a - b) / max(abs(b), 1e-12) for a, b in zip(gl[:n], cl[:n])), default=float("nan"))
print(f"gpu vs cpu: {n} steps, first losses {gl[:3]} vs {cl[:3]}, max relative difference {diff:.3g}")
print("gpu vs cpu final test accuracy:", g["epochs"][-1]["test_accuracy"], c["epochs"][-1]["test_accuracy"])
s1, s2 = d1.get("step_losses", []), d2.get("step_losses", [])
print(f"deterministic gpu runs: {len(s1)} step losses, bitwise equal: {bool(s1) and s1 == s2}")
PY
summary+=("$(cat "$OUT/compare.txt")")

if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  PYTHONUNBUFFERED=1 timeout 300 python3 "$ROOT/tests/benchmarks/train_vs_pytorch.py" \
    --binary "$B/bin/paddle_like" --place gpu --data "$B/datasets/fashion-mnist-10k" \
    --model lenet --epochs 3 --rounds "${GPU_CHECK_TORCH_ROUNDS:-3}" --threads 4 >"$OUT/vs_pytorch.log" 2>&1
  note "vs pytorch (exit $?): $(tail -4 "$OUT/vs_pytorch.log" | tr '\n' ' ')"
fi

# Saved models through a predictor on the GPU and on the CPU (oneDNN, 4 threads): p50 latency.
bench() {  # bench MODEL [--shape ...]
  local model=$1 line=""
  shift
  for place in gpu cpu; do
    timeout 60 "$B/bin/paddle_like" bench --model "$ROOT/tests/fixtures/models/$model" \
      --place "$place" --warmup 10 --repeat 50 --profile "$OUT/bench_${model}_$place.json" \
      "$@" >"$OUT/bench_${model}_$place.log" 2>&1
    line+=" $place: $(grep -oE 'p50 [0-9.]+' "$OUT/bench_${model}_$place.log" || echo "exit $?") ms"
  done
  note "bench $model$line"
}
bench ppocr_mobile_v2_cls --shape x=1x3x48x192
bench ppocrv3_det --shape x=1x3x640x640
bench ppyolo_tiny
bench face_det_blazeface --shape image=1x3x640x640

start=$SECONDS
# GPU_CHECK_BENCH_FILTER narrows the benchmark to some rows (a regular expression).
timeout 400 "$B/bin/cuda_vs_library_benchmark" --benchmark_min_time=0.3 \
  --benchmark_filter="${GPU_CHECK_BENCH_FILTER:-.}" \
  --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true \
  --benchmark_out="$OUT/cuda_vs_library.json" --benchmark_out_format=json \
  >"$OUT/cuda_vs_library.log" 2>&1
note "cuda_vs_library_benchmark: exit $? ($((SECONDS - start)) s)"
grep -E "_median" "$OUT/cuda_vs_library.log"

if [[ ${GPU_CHECK_MEMCHECK:-1} != 0 ]] && command -v compute-sanitizer >/dev/null; then
  timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/bin/cuda_kernel_test" \
    >"$OUT/memcheck.log" 2>&1
  note "memcheck cuda_kernel_test: exit $?, $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
  for t in cuda_cudnn_test cuda_conv_transpose_test cuda_norm_dropout_test \
    cuda_interp_lookup_test cuda_detection_test cuda_common_ops_test; do
    timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/bin/$t" \
      >"$OUT/memcheck_$t.log" 2>&1
    note "memcheck $t: exit $?, $(grep -E 'ERROR SUMMARY' "$OUT/memcheck_$t.log" | tail -1)"
  done
fi

echo
echo "==== one GPU predictor run of each model, the costliest op types"
for f in "$OUT"/bench_*_gpu.log; do
  echo "-- $(basename "$f" _gpu.log)"
  grep -A12 -m1 "op type" "$f"
  echo "   on the CPU: $(grep -oE '^ +[a-z0-9_]+ \{CPU' "$f" | awk '{print $1}' | tr '\n' ' ')"
  grep -E "data transforms" "$f"
done
echo
echo "==== the GPU LeNet step, per op"
tail -n 48 "$OUT/train_gpu.log"
echo
echo "==== summary"
printf '%s\n' "${summary[@]}"
