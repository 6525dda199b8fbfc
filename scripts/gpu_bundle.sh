#!/usr/bin/env bash
# Packs what scripts/gpu_check.sh needs into build/gpu_bundle/bundle.part{1,2,3}.tar.xz, so that the GPU
# checks run on a machine that has an NVIDIA GPU and CUDA's runtime libraries but none of the
# build's other dependencies: the paddle_like tool, the CUDA test and benchmark programs, the
# project's shared libraries, the third-party libraries they load (oneDNN, protobuf, glog,
# gflags, ...), the digits dataset, the Fashion-MNIST test images, and the real models of
# ../shared/models with the goldens of the mobile ones (when that folder is present). cudart,
# cuBLAS and cuDNN come from the machine that runs the checks.
#
#   scripts/gpu_bundle.sh            # BUILD_DIR (default build) must be a WITH_GPU build
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$(realpath "${BUILD_DIR:-$ROOT/build}")"
OUT="$BUILD/gpu_bundle"
STAGE="$OUT/stage"
TESTS=(cuda_kernel_test cuda_cudnn_test cuda_conv_transpose_test cuda_norm_dropout_test
  cuda_interp_lookup_test cuda_detection_test cuda_common_ops_test cuda_shared_models_test
  cuda_collective_test
  paddle_op_fixtures_test)
PROGRAMS=(bin/paddle_like "${TESTS[@]/#/tests/}" tests/benchmarks/cuda_vs_library_benchmark)

grep -q '^WITH_GPU:BOOL=ON' "$BUILD/CMakeCache.txt" || {
  echo "gpu_bundle: $BUILD is not a WITH_GPU build" >&2
  exit 1
}
cmake --build "$BUILD" -j"$(nproc)" --target paddle_like "${TESTS[@]}" cuda_vs_library_benchmark
"$ROOT/scripts/fetch_datasets.sh" "$BUILD/datasets" >/dev/null

rm -rf "$OUT"
mkdir -p "$STAGE/bin" "$STAGE/lib" "$STAGE/datasets/fashion-mnist-10k"
for p in "${PROGRAMS[@]}"; do cp "$BUILD/$p" "$STAGE/bin/"; done
# Every library the programs load, except the C and C++ runtimes (the target's are newer)
# and CUDA's own libraries (NCCL among them).
for p in "$STAGE"/bin/*; do ldd "$p"; done | awk '/=> \// {print $3}' | sort -u |
  while read -r lib; do
    case "$(basename "$lib")" in
      libc.so* | libm.so* | libstdc++.so* | libgcc_s.so* | libpthread.so* | libdl.so* | \
        librt.so* | ld-linux* | libcuda.so* | libcudart* | libcublas* | libcudnn* | libnccl*) ;;
      *) cp -L "$lib" "$STAGE/lib/" ;;
    esac
  done
strip --strip-unneeded "$STAGE"/bin/* "$STAGE"/lib/*
cp -r "$BUILD/datasets/sklearn" "$STAGE/datasets/"
# Fashion-MNIST's 10k test images serve as a training set too: enough steps for timing.
FM=/usr/share/datasets/fashion-mnist
if [[ -d $FM ]]; then
  for kind in images-idx3 labels-idx1; do
    cp "$FM/t10k-$kind-ubyte.gz" "$STAGE/datasets/fashion-mnist-10k/"
    cp "$FM/t10k-$kind-ubyte.gz" "$STAGE/datasets/fashion-mnist-10k/train-$kind-ubyte.gz"
  done
fi
if [[ -d $ROOT/../shared/models ]]; then
  cp -r "$ROOT/../shared/models" "$STAGE/models"
  cp -r "$ROOT/tests/fixtures/mobile_models" "$STAGE/goldens"
fi
# Three parts of about 10 MB each rather than one file: what travels to a GPU machine with
# the working tree has a size limit, and each part can travel with a call of its own.
big1=(lib/libdnnl.so.2)
big2=(lib/libpl_operators.so datasets/fashion-mnist-10k)
tar -C "$STAGE" -cJf "$OUT/bundle.part1.tar.xz" "${big1[@]}"
tar -C "$STAGE" -cJf "$OUT/bundle.part2.tar.xz" "${big2[@]}"
tar -C "$STAGE" -cJf "$OUT/bundle.part3.tar.xz" "${big1[@]/#/--exclude=./}" \
  "${big2[@]/#/--exclude=./}" .
rm -rf "$STAGE"
ls -la "$OUT"/bundle.part*.tar.xz
