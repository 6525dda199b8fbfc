#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the main job: trains the default model
# (LeNet on Fashion-MNIST, 3 epochs), saves it as a PaddlePaddle inference model, reloads
# and evaluates it, then runs it on a few test images through the inference library
# (`paddle_like infer`).
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
"$BIN" infer --model "$MODEL" --input image="$MODEL/test_images.npy" \
    --out "$MODEL/predictions"
python3 - "$MODEL/predictions/save_infer_model_scale_0.tmp_0.npy" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
header_len = struct.unpack("<H", data[8:10])[0]
values = struct.unpack("<%df" % ((len(data) - 10 - header_len) // 4), data[10 + header_len:])
rows = [values[i:i + 10] for i in range(0, len(values), 10)]
print("predicted classes:", " ".join(str(max(range(10), key=r.__getitem__)) for r in rows))
PY
