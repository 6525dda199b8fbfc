#!/usr/bin/env python3
"""Loads an inference model saved by paddle_like with PaddlePaddle's own loader, runs it on
the same input and compares the outputs with paddle_like's (`paddle_like run`).

    build/bin/paddle_like train --save /tmp/m
    build/bin/paddle_like run --program /tmp/m/model.pdmodel \
        --feed image=/tmp/m/test_images.npy --out /tmp/m/pred
    python3 tests/compat/check_with_paddle.py /tmp/m/model /tmp/m/test_images.npy \
        /tmp/m/pred/save_infer_model_scale_0.tmp_0.npy

Needs the `paddlepaddle` package from PyPI (a reference only, never a dependency of the
runtime). Exits non-zero when the outputs differ by more than 1e-5.
"""
import os
import sys

os.environ["FLAGS_enable_pir_api"] = "0"  # Read the legacy ProgramDesc format.

import numpy as np  # noqa: E402
import paddle  # noqa: E402


def main():
    prefix, images, ours = sys.argv[1:4]
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
    (theirs,) = exe.run(program, feed={feeds[0]: np.load(images)}, fetch_list=fetches)
    mine = np.load(ours)
    diff = float(np.abs(theirs - mine).max())
    print(f"PaddlePaddle {paddle.__version__} loaded {prefix}: feeds {feeds}, "
          f"fetches {[f.name for f in fetches]}, output {theirs.shape}")
    print(f"max |paddle - paddle_like| = {diff:.3g}, same argmax: "
          f"{bool((theirs.argmax(1) == mine.argmax(1)).all())}")
    return 0 if diff <= 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main())
