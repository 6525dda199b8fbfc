#!/usr/bin/env python3
"""Epoch time and accuracy of `paddle_like train` against PyTorch 2.x on the same model, data,
batch size, optimizer and thread count, measured in one run.

    PY="$(scripts/reference_env.sh --with-torch | tail -n1)"
    "$PY" tests/benchmarks/train_vs_pytorch.py --model lenet --epochs 3 --threads 2 --rounds 2

PyTorch is PyTorch 2.x from PyPI (oneDNN inside), in the virtual environment that
scripts/reference_env.sh creates: the PyTorch users install. Debian's python3-torch (1.13)
is 3-4x slower and is refused. Both sides read the Fashion-MNIST idx files of Debian's
dataset-fashion-mnist, normalise pixels to x/255*2-1, shuffle every epoch, and use Adam
(lr 0.001, betas 0.9/0.999, eps 1e-8) with batch 64, both flush denormals (the default) and
use the same threads. The epoch time covers training only (evaluation excluded) on both
sides. With --rounds N the two sides take turns N times, so that the machine's noise shows
in the spread of the per-round ratios.

With --place gpu both sides train on the first CUDA device: each batch goes from host memory
to the device every step on both sides, and PyTorch's TF32 is turned off (paddle_like computes
float32 products in float32). --data DIR reads the idx files from DIR instead.
"""
import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic = int.from_bytes(data[0:4], "big")
    if magic == 0x803:
        n, rows, cols = (int.from_bytes(data[i:i + 4], "big") for i in (4, 8, 12))
        return np.frombuffer(data, np.uint8, offset=16).reshape(n, 1, rows, cols)
    n = int.from_bytes(data[4:8], "big")
    return np.frombuffer(data, np.uint8, offset=8).reshape(n)


def load(split, data=DATA):
    prefix = "train" if split == "train" else "t10k"
    find = lambda stem: next(os.path.join(data, stem + ext) for ext in (".gz", "")
                             if os.path.exists(os.path.join(data, stem + ext)))
    x = read_idx(find(prefix + "-images-idx3-ubyte")).astype(np.float32) / 255 * 2 - 1
    y = read_idx(find(prefix + "-labels-idx1-ubyte")).astype(np.int64)
    return torch.from_numpy(x), torch.from_numpy(y)


def torch_model(name):
    if name == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128),
                             nn.ReLU(), nn.Linear(128, 10))
    return nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(20, 50, 5),
                         nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(800, 500), nn.ReLU(),
                         nn.Linear(500, 10))


def run_torch(args):
    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(args.denormals == "flush")
    torch.manual_seed(args.seed)
    (xtr, ytr), (xte, yte) = load("train", args.data), load("test", args.data)
    device = torch.device("cuda" if args.place == "gpu" else "cpu")
    if args.place == "gpu":
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
        # Both sides time cuDNN's algorithms, or neither (paddle_like reads the flag from the
        # environment it inherits).
        timed = os.environ.get("FLAGS_cudnn_exhaustive_search", "").lower() in ("1", "true")
        torch.backends.cudnn.benchmark = timed
    model = torch_model(args.model).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    epochs = []
    for epoch in range(args.epochs):
        model.train()
        perm = torch.randperm(len(xtr))
        start = time.perf_counter()
        for i in range(0, len(xtr), args.batch_size):
            idx = perm[i:i + args.batch_size]
            opt.zero_grad()
            loss = loss_fn(model(xtr[idx].to(device)), ytr[idx].to(device))
            loss.backward()
            opt.step()
        if args.place == "gpu":
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        model.eval()
        with torch.no_grad():
            acc = sum((model(xte[i:i + 500].to(device)).argmax(1).cpu() == yte[i:i + 500])
                      .sum().item()
                      for i in range(0, len(xte), 500)) / len(xte)
        epochs.append({"epoch": epoch + 1, "seconds": seconds, "test_accuracy": acc})
        print(f"pytorch     epoch {epoch + 1}: {seconds:.1f}s test acc {acc:.4f}", flush=True)
    return epochs


def run_paddle_like(args):
    report = os.path.join(tempfile.mkdtemp(), "report.json")
    env = dict(os.environ, FLAGS_paddle_num_threads=str(args.threads),
               FLAGS_cpu_flush_denormal=str(args.denormals == "flush").lower())
    cmd = [args.binary, "train", "--model", args.model, "--dataset", "fashion-mnist",
           "--epochs", str(args.epochs), "--batch-size", str(args.batch_size), "--optimizer",
           "adam", "--lr", str(args.lr), "--seed", str(args.seed), "--save",
           os.path.join(os.path.dirname(report), "model"), "--report", report, "--no-progress",
           "--place", args.place, "--data-dir", args.data]
    subprocess.run(cmd, env=env, check=True)
    with open(report) as f:
        return json.load(f)["epochs"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="lenet", choices=["mlp", "lenet"])
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.001)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rounds", type=int, default=1,
                   help="times each side runs, taking turns (paddle_like first)")
    p.add_argument("--binary", default="build/bin/paddle_like")
    p.add_argument("--place", default="cpu", choices=["cpu", "gpu"])
    p.add_argument("--data", default=DATA, help="directory of the Fashion-MNIST idx files")
    p.add_argument("--denormals", default="flush", choices=["flush", "keep"],
                   help="both sides flush denormal floats to zero (paddle_like's default), or "
                        "both keep them (PyTorch's default)")
    args = p.parse_args()
    if int(torch.__version__.split(".")[0]) < 2:
        sys.exit(f"train_vs_pytorch: PyTorch {torch.__version__} found, 2.x expected: run it "
                 "with the python of scripts/reference_env.sh --with-torch")
    mean = lambda e: sum(x["seconds"] for x in e) / len(e)
    # Epochs after the first: without the first steps' one-time costs (algorithm choice, the
    # caching allocator filling up, PyTorch's lazy initialisation).
    steady = lambda e: mean(e[1:]) if len(e) > 1 else mean(e)
    rounds = []
    for r in range(args.rounds):
        ours = run_paddle_like(args)
        theirs = run_torch(args)
        rounds.append((ours, theirs))
        print(f"round {r + 1}: paddle_like {mean(ours):.2f} s/epoch, pytorch "
              f"{mean(theirs):.2f} s/epoch, ratio {mean(ours) / mean(theirs):.2f}", flush=True)
    ratios = sorted(mean(o) / mean(t) for o, t in rounds)
    median = statistics.median(ratios)
    ours_s = [mean(o) for o, _ in rounds]
    theirs_s = [mean(t) for _, t in rounds]
    print(f"\n{args.model} on {args.place}, {args.epochs} epochs, batch {args.batch_size}, "
          f"adam, "
          f"{args.threads} threads, denormals {args.denormals}, torch {torch.__version__}, "
          f"{args.rounds} round(s)")
    ours_acc = ", ".join(f"{o[-1]['test_accuracy']:.4f}" for o, _ in rounds)
    theirs_acc = ", ".join(f"{t[-1]['test_accuracy']:.4f}" for _, t in rounds)
    print(f"  paddle_like: {min(ours_s):.2f}-{max(ours_s):.2f} s/epoch, final test accuracy "
          f"{ours_acc}")
    print(f"  pytorch    : {min(theirs_s):.2f}-{max(theirs_s):.2f} s/epoch, final test accuracy "
          f"{theirs_acc}")
    print(f"  time ratio paddle_like / pytorch: median {median:.2f} "
          f"(range {ratios[0]:.2f}-{ratios[-1]:.2f})")
    steady_ratios = sorted(steady(o) / steady(t) for o, t in rounds)
    print(f"  epochs 2+: paddle_like {min(steady(o) for o, _ in rounds):.3f} s/epoch, pytorch "
          f"{min(steady(t) for _, t in rounds):.3f} s/epoch (best rounds), ratio median "
          f"{statistics.median(steady_ratios):.2f} (range {steady_ratios[0]:.2f}-"
          f"{steady_ratios[-1]:.2f})")


if __name__ == "__main__":
    sys.exit(main())
