#!/usr/bin/env bash
# Creates (or reuses) the Python virtual environment `.venv-ref` in the repository root with
# PaddlePaddle and NumPy, for the scripts that make reference outputs (tests/fixtures/*.py).
#
#   scripts/reference_env.sh              # paddlepaddle 3.3.x + numpy
#   scripts/reference_env.sh --with-onnx  # also onnxruntime + paddle2onnx
#   scripts/reference_env.sh --with-torch # also PyTorch 2.x from PyPI (training benchmarks)
#   scripts/reference_env.sh --paddle2    # `.venv-ref-paddle2`: paddlepaddle 2.6.x + numpy 1.x,
#                                         # for the fixtures of LoD ops PaddlePaddle 3 removed
#
# Prints the path of the environment's python on the last line, e.g.
#   "$(scripts/reference_env.sh | tail -n1)" tests/fixtures/make_op_fixtures.py
set -euo pipefail
cd "$(dirname "$0")/.."

WITH_ONNX=0
WITH_TORCH=0
PADDLE2=0
for arg in "$@"; do
  case "$arg" in
    --with-onnx) WITH_ONNX=1 ;;
    --with-torch) WITH_TORCH=1 ;;
    --paddle2) PADDLE2=1 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "reference_env: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

VENV="$PWD/.venv-ref"
((PADDLE2)) && VENV="$PWD/.venv-ref-paddle2"
PYTHON=${PYTHON:-python3}

# python3 -m venv needs ensurepip, which Debian ships in python3-venv.
if [[ ! -x "$VENV/bin/python" ]]; then
  if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    SUDO=""
    [[ $(id -u) -ne 0 ]] && SUDO="sudo"
    echo "reference_env: installing python3-venv" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
  fi
  echo "reference_env: creating $VENV" >&2
  "$PYTHON" -m venv "$VENV"
fi

PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
want=("paddlepaddle==3.3.*" numpy)
((PADDLE2)) && want=("paddlepaddle==2.6.*" "numpy==1.*")
((WITH_ONNX)) && want+=(onnxruntime paddle2onnx)
((WITH_TORCH)) && want+=("torch==2.*")

# Skip pip entirely when everything is already there (idempotent and offline-friendly).
if ! "$VENV/bin/python" - "${want[@]}" >/dev/null 2>&1 <<'EOF'
import sys
from importlib.metadata import version, PackageNotFoundError
for spec in sys.argv[1:]:
    name, _, ver = spec.partition("==")
    try:
        have = version(name)
    except PackageNotFoundError:
        sys.exit(1)
    if ver and not have.startswith(ver.rstrip("*").rstrip(".")):
        sys.exit(1)
EOF
then
  echo "reference_env: pip install ${want[*]}" >&2
  "${PIP[@]}" install "${want[@]}" >&2
fi

echo "$VENV/bin/python"
