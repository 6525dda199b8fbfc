#!/usr/bin/env python3
"""Latency of exported detectors with their own inputs: paddle_like (`paddle_like bench
--input ...`) against PaddlePaddle's paddle.inference (oneDNN on), in the same run.

    "$(scripts/reference_env.sh | tail -n1)" tests/benchmarks/compare_detectors.py \
        DIR [DIR ...] [--threads 2] [--warmup 2] [--repeat 5]

Each DIR holds model.pdmodel, model.pdiparams and one <feed>.npy per input (as
tests/fixtures/models/* and the output of tests/fixtures/detectors/export.sh do, with the
reference inputs). Prints a Markdown table of median latencies in milliseconds.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "build", "bin", "paddle_like")


def inputs_of(d):
    return {f[:-len(".npy")]: os.path.join(d, f) for f in sorted(os.listdir(d))
            if f.endswith(".npy") and not f.startswith("expected_")}


def ours(d, threads, warmup, repeat):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        cmd = [CLI, "bench", "--program", os.path.join(d, "model.pdmodel"), "--params",
               os.path.join(d, "model.pdiparams"), "--threads", str(threads), "--warmup",
               str(warmup), "--repeat", str(repeat), "--report", report.name]
        for name, path in inputs_of(d).items():
            cmd += ["--input", "%s=%s" % (name, path)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(report.name) as f:
            return json.load(f)["p50_ms"]


def paddle(d, threads, warmup, repeat):
    os.environ["FLAGS_enable_pir_api"] = "0"
    import paddle.inference as pi
    config = pi.Config(os.path.join(d, "model.pdmodel"), os.path.join(d, "model.pdiparams"))
    config.disable_gpu()
    config.enable_mkldnn()
    config.set_cpu_math_library_num_threads(threads)
    config.switch_ir_optim(True)
    config.disable_glog_info()
    predictor = pi.create_predictor(config)
    for name, path in inputs_of(d).items():
        value = np.load(path)
        h = predictor.get_input_handle(name)
        h.reshape(list(value.shape))
        h.copy_from_cpu(value)
    for _ in range(warmup):
        predictor.run()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        predictor.run()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print("| model | paddle_like ms | paddle.inference ms | ratio |")
    print("|---|---:|---:|---:|")
    for d in args.dirs:
        name = os.path.basename(os.path.normpath(d))
        mine = ours(d, args.threads, args.warmup, args.repeat)
        try:
            theirs = paddle(d, args.threads, args.warmup, args.repeat)
        except Exception as e:  # A model the reference cannot run: no figure.
            print("paddle.inference failed on %s: %s" % (name, e), file=sys.stderr)
            theirs = None
        print("| %s | %.1f | %s | %s |" % (name, mine, "%.1f" % theirs if theirs else "-",
                                          "%.2f" % (mine / theirs) if theirs else "-"),
              flush=True)


if __name__ == "__main__":
    main()
