#!/usr/bin/env bash
# Installs every Debian package that the build, the tests and the main job need, then
# configures and builds paddle_like (with ccache) into ./build, and fetches the datasets that
# the saved-model accuracy tests read (scripts/fetch_datasets.sh).
#
#   scripts/setup.sh            # install + configure + build
#   BUILD_DIR=out scripts/setup.sh
#   CMAKE_ARGS="-DWITH_GPU=OFF" scripts/setup.sh
#   CMAKE_BUILD_TYPE=RelWithDebInfo scripts/setup.sh
#   SETUP_TARGETS="fuzz_npy" scripts/setup.sh   # build only these targets
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
PACKAGES=(
  build-essential cmake ccache python3
  libeigen3-dev libdnnl-dev libgoogle-glog-dev libgflags-dev
  libprotobuf-dev protobuf-compiler zlib1g-dev libpng-dev libjpeg-dev
  libgtest-dev libgmock-dev libbenchmark-dev libgloo-dev openmpi-bin nlohmann-json3-dev
  dataset-fashion-mnist
)

# EXTRA_PACKAGES: what a sanitized build adds (scripts/sanitize_env.sh).
bash scripts/install_packages.sh "${PACKAGES[@]}" ${EXTRA_PACKAGES:-}

# CUDA lives under /usr/local/cuda on these machines; WITH_GPU turns on when nvcc is found.
[[ -d /usr/local/cuda/bin ]] && export PATH="/usr/local/cuda/bin:$PATH"

# Paths relative to the checkout, so ccache hits across clones in other directories.
export CCACHE_BASEDIR="$PWD"
JOBS=${JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" ${CMAKE_ARGS:-} >/dev/null
TARGET_ARGS=()
[[ -n "${SETUP_TARGETS:-}" ]] && TARGET_ARGS=(--target ${SETUP_TARGETS})
cmake --build "$BUILD_DIR" -j"$JOBS" ${TARGET_ARGS[@]+"${TARGET_ARGS[@]}"}
echo "setup: built into $BUILD_DIR"

# Real datasets for the saved-model accuracy tests; those tests skip when this fails.
if ! bash scripts/fetch_datasets.sh "$BUILD_DIR/datasets"; then
  echo "setup: warning: could not fetch the scikit-learn datasets; tests that need them skip" >&2
fi
