#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the main job: trains the default model
# (LeNet on Fashion-MNIST, 3 epochs), saves it as a PaddlePaddle inference model, reloads
# and evaluates it, then runs it on a few test images with `paddle_like run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD="${BUILD_DIR:-build}"
BIN="$BUILD/bin/paddle_like"
MODEL="$BUILD/model"
export FLAGS_paddle_num_threads="${FLAGS_paddle_num_threads:-$(nproc)}"
"$BIN" train --save "$MODEL" --report "$BUILD/train_report.json" "$@"
echo "== the saved model on 8 test images (labels: $(python3 -c "
import sys
d=open('$MODEL/test_labels.npy','rb').read()
n=int.from_bytes(d[8:10],'little'); vals=d[10+n:]
print(' '.join(str(int.from_bytes(vals[i:i+8],'little')) for i in range(0,len(vals),8)))"))"
"$BIN" run --program "$MODEL/model.pdmodel" --feed image="$MODEL/test_images.npy" \
    --out "$MODEL/predictions"
