#!/usr/bin/env python3
"""Latency of control flow in PIR programs (PaddlePaddle 3's default save format):
paddle_like's inference library (`paddle_like bench`) against PaddlePaddle's paddle.inference
on the same saved programs, measured in the same run.

    "$(scripts/reference_env.sh | tail -n1)" tests/benchmarks/compare_pir_loops.py \
        [--repeat 30] [--rounds 3]

Programs (written in Python, converted by paddle.jit.to_static, seeded random weights):
  loop_4mb      a while loop of 50 iterations carrying a [1, 1048576] float tensor
                (s = s * 1.0001 + 0.5): what the loop costs beyond its arithmetic is the
                carrying of its values from one iteration to the next;
  greedy_decode a decoding loop of 32 steps: embedding, a tanh cell, a projection to 1000
                classes and argmax per step, the tokens written to a tensor array.
For each: the median latency (ms) of `repeat` runs after 5 warm-up runs, each runtime's best
median over `rounds` rounds taken in turns, one thread each, and the ratio.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ["FLAGS_enable_pir_api"] = "1"

import numpy as np  # noqa: E402
import paddle  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "build", "bin", "paddle_like")


class Loop(paddle.nn.Layer):
    def forward(self, x, n):
        i = paddle.zeros([1], "int64")
        s = x
        while i < n:
            s = s * 1.0001 + 0.5
            i = i + 1
        return s


class GreedyDecode(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = paddle.nn.Embedding(1000, 256)
        self.cell = paddle.nn.Linear(256, 256)
        self.out = paddle.nn.Linear(256, 1000)

    def forward(self, x, n):
        tok = paddle.zeros([4], "int64")
        tokens = paddle.tensor.create_array("int64")
        i = paddle.zeros([1], "int64")
        h = x
        while i < n:
            h = paddle.tanh(self.cell(h) + self.emb(tok))
            tok = paddle.argmax(self.out(h), axis=-1)
            paddle.tensor.array_write(tok, i, array=tokens)
            i = i + 1
        stacked, _ = paddle.tensor.manipulation.tensor_array_to_tensor(tokens, axis=0,
                                                                       use_stack=True)
        return stacked


PROGRAMS = {
    "loop_4mb": (Loop, [("x", [1, 1048576], "float32"), ("n", [1], "int64")],
                 {"x": np.random.RandomState(0).uniform(-1, 1, (1, 1048576)).astype("float32"),
                  "n": np.array([50], "int64")}),
    "greedy_decode": (GreedyDecode, [("x", [4, 256], "float32"), ("n", [1], "int64")],
                      {"x": np.random.RandomState(1).uniform(-1, 1, (4, 256)).astype("float32"),
                       "n": np.array([32], "int64")}),
}


def save(name, tmp):
    layer, specs, feeds = PROGRAMS[name]
    paddle.seed(0)
    model = layer()
    model.eval()
    specs = [paddle.static.InputSpec(shape, dtype, n) for n, shape, dtype in specs]
    model = paddle.jit.to_static(model, input_spec=specs, full_graph=True)
    prefix = os.path.join(tmp, name, "inference")
    paddle.jit.save(model, prefix)
    inputs = []
    for n, value in feeds.items():
        path = os.path.join(tmp, name, n + ".npy")
        np.save(path, value)
        inputs.append("%s=%s" % (n, path))
    return prefix, feeds, inputs


def paddle_median(prefix, feeds, repeat):
    params = prefix + ".pdiparams"
    config = paddle.inference.Config(prefix + ".json", params if os.path.exists(params) else "")
    config.disable_gpu()
    config.set_cpu_math_library_num_threads(1)
    predictor = paddle.inference.create_predictor(config)
    for n in predictor.get_input_names():
        predictor.get_input_handle(n).copy_from_cpu(feeds[n])
    outputs = [predictor.get_output_handle(n) for n in predictor.get_output_names()]
    times = []
    for k in range(5 + repeat):
        start = time.perf_counter()
        predictor.run()
        for o in outputs:
            o.copy_to_cpu()
        if k >= 5:
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def paddle_like_median(prefix, inputs, repeat):
    cmd = [CLI, "bench", "--model", os.path.dirname(prefix), "--threads", "1", "--warmup", "5",
           "--repeat", str(repeat)] + sum((["--input", i] for i in inputs), [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("latency ms:"):
            return float(line.split("p50")[1].split()[0])
    sys.exit("no latency in: " + out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if not os.path.exists(CLI):
        sys.exit("build paddle_like first (%s)" % CLI)
    with tempfile.TemporaryDirectory() as tmp:
        saved = {name: save(name, tmp) for name in PROGRAMS}
        best = {name: [float("inf"), float("inf")] for name in PROGRAMS}
        for _ in range(args.rounds):
            for name, (prefix, feeds, inputs) in saved.items():
                best[name][0] = min(best[name][0], paddle_like_median(prefix, inputs, args.repeat))
                best[name][1] = min(best[name][1], paddle_median(prefix, feeds, args.repeat))
        print("| program | paddle_like ms | PaddlePaddle ms | ratio |")
        print("|---|---:|---:|---:|")
        for name, (ours, theirs) in best.items():
            print("| %s | %.3f | %.3f | %.2f |" % (name, ours, theirs, ours / theirs))


if __name__ == "__main__":
    main()
