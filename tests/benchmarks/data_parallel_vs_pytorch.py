#!/usr/bin/env python3
"""Data-parallel training throughput of `paddle_like launch ... train --distributed` against
PyTorch 2.x DistributedDataParallel (Gloo) on LeNet, with 1 and 2 processes of 1 thread each on
this machine, measured in one run.

    PY="$(scripts/reference_env.sh --with-torch | tail -n1)"
    "$PY" tests/benchmarks/data_parallel_vs_pytorch.py --steps 300 --rounds 2

The four configurations (paddle_like 1 process, paddle_like 2 processes, PyTorch 1 process,
PyTorch 2 processes) take turns each round, so that the machine's noise shows in the figures
of the rounds. Every process uses 1 thread (FLAGS_paddle_num_threads=1, torch.set_num_threads(1))
and flushes denormals. The figure is samples of training per second of the global batch
(evaluation, saving, start-up and data loading excluded); the table gives each round's figure
and the median, for 2 processes the scaling efficiency throughput(2) / (2 * throughput(1)) of
the same framework, and the ratio paddle_like / PyTorch per process count (median of the
rounds' ratios, and their range).

Both sides train the LeNet of train_vs_pytorch.py (conv 20 5x5 relu, max pool 2, conv 50 5x5
relu, max pool 2, fc 500 relu, fc 10) in float32 on the Fashion-MNIST idx files of Debian's
dataset-fashion-mnist (pixels x/255*2-1), shuffled, with Adam (lr 0.001) and a global batch of
64 for --steps steps: with 2 processes each rank trains on its 32 contiguous rows of the same
shuffled global batch and the gradients are all-reduced. Both sides also all-reduce the step's
loss and accuracy (2 numbers) every step, as `paddle_like train --distributed` does for its
report.

paddle_like: `FLAGS_paddle_num_threads=1 paddle_like train --model lenet --epochs 1 --steps S
--batch-size 64 ...` for 1 process, `paddle_like launch --nproc 2 train --distributed ...` for
2; the figure is epochs[0].samples_per_second of the --report JSON: rank 0's clock over all S
steps as the trainer times them, its first steps included (and with 2 processes any wait for
the other rank to reach its first step), so no warm-up is left out on this side.

PyTorch: torch.multiprocessing spawns the ranks; with 2 processes they join a process group
with backend "gloo" on 127.0.0.1 (a free port) and train DistributedDataParallel(LeNet); with
1 process the rank trains the plain model (no process group, no DDP wrapper), as paddle_like's
1-process `train` runs without --distributed. After --warmup untimed steps (default 10), rank 0
times S steps between two barriers. The JSON also holds PyTorch's figure with the warm-up steps
counted, to show how much the first steps cost.

--batch-per-process N measures the other way of scaling: every process trains N rows a step,
so the global batch is N with 1 process and 2N with 2 (the figure is still samples per
second, and the efficiency the same ratio); the default keeps the global batch at 64.

--variant FLAG=VALUE adds a configuration: paddle_like on 2 processes with that environment
variable (a FLAGS_ setting), run in each round right after the plain one, its efficiency
against the same 1-process figure: a change measured against the code as it is, in the same
run (repeat it for several). --binary PATH runs another paddle_like, --data DIR reads the idx
files from DIR, --json OUT writes every figure to OUT.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_vs_pytorch import DATA, load, torch_model  # noqa: E402

BATCH = 64
LR = 0.001
CONFIGS = [("paddle_like", 1), ("paddle_like", 2), ("pytorch", 1), ("pytorch", 2)]


def global_batch(nranks, args):
    return args.batch_per_process * nranks if args.batch_per_process else BATCH


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torch_rank(rank, nranks, port, args, out):
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    torch.set_flush_denormal(True)
    if nranks > 1:
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        dist.init_process_group("gloo", rank=rank, world_size=nranks)
    sync = dist.barrier if nranks > 1 else (lambda: None)
    xtr, ytr = load("train", args.data)
    torch.manual_seed(args.seed)  # The same initial parameters on every rank.
    model = torch_model("lenet")
    if nranks > 1:
        model = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    batch = global_batch(nranks, args)
    # The same shuffle on every rank; each takes its contiguous rows of the global batch.
    gen = torch.Generator().manual_seed(args.seed)
    perm = torch.randperm(len(xtr), generator=gen)
    lo, hi = batch * rank // nranks, batch * (rank + 1) // nranks
    share = hi - lo
    steps_per_epoch = len(xtr) // batch
    model.train()

    def step(i):
        nonlocal perm
        j = i % steps_per_epoch
        if i > 0 and j == 0:
            perm = torch.randperm(len(xtr), generator=gen)
        idx = perm[j * batch + lo:j * batch + hi]
        x, y = xtr[idx], ytr[idx]
        opt.zero_grad()
        logits = model(x)
        loss = loss_fn(logits, y)
        loss.backward()
        opt.step()
        # The step's loss and accuracy over the global batch, as paddle_like reports them.
        metrics = torch.tensor([loss.item(), (logits.argmax(1) == y).float().mean().item()],
                               dtype=torch.float64) * (share / batch)
        if nranks > 1:
            dist.all_reduce(metrics)
        return metrics

    sync()
    t0 = time.perf_counter()
    for i in range(args.warmup):
        step(i)
    sync()
    t1 = time.perf_counter()
    for i in range(args.warmup, args.warmup + args.steps):
        last = step(i)
    sync()
    t2 = time.perf_counter()
    if rank == 0:
        with open(out, "w") as f:
            json.dump({"samples_per_second": args.steps * batch / (t2 - t1),
                       "seconds": t2 - t1,
                       "samples_per_second_with_warmup":
                           (args.warmup + args.steps) * batch / (t2 - t0),
                       "last_loss": last[0].item()}, f)
    if nranks > 1:
        dist.destroy_process_group()


def run_torch(nranks, args, tmp):
    out = os.path.join(tmp, f"torch_{nranks}.json")
    # Gloo on the loopback device: the ranks meet at 127.0.0.1.
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    mp.spawn(torch_rank, args=(nranks, free_port(), args, out), nprocs=nranks, join=True)
    with open(out) as f:
        return json.load(f)


def run_paddle_like(nranks, args, tmp, variant=None):
    report = os.path.join(tmp, f"paddle_like_{nranks}.json")
    save = os.path.join(tmp, f"model_{nranks}")
    env = dict(os.environ, FLAGS_paddle_num_threads="1", FLAGS_cpu_flush_denormal="true")
    if variant:
        name, _, value = variant.partition("=")
        env[name] = value
    train = ["train", "--model", "lenet", "--dataset", "fashion-mnist", "--epochs", "1",
             "--steps", str(args.steps), "--batch-size", str(global_batch(nranks, args)),
             "--optimizer", "adam",
             "--lr", str(LR), "--seed", str(args.seed), "--no-progress", "--save", save,
             "--report", report, "--data-dir", args.data]
    if nranks > 1:
        cmd = [args.binary, "launch", "--nproc", str(nranks)] + train[:1] + ["--distributed"] + \
            train[1:]
    else:
        cmd = [args.binary] + train
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    with open(report) as f:
        r = json.load(f)
    if r["ranks"] != nranks:
        sys.exit(f"data_parallel_vs_pytorch: {cmd} reported {r['ranks']} ranks, {nranks} expected")
    e = r["epochs"][0]
    return {"samples_per_second": e["samples_per_second"], "seconds": e["seconds"],
            "last_loss": r["step_losses"][-1] if r.get("step_losses") else None}


def spread(values):
    return (f"{statistics.median(values):.2f}" if len(values) == 1 else
            f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=300, help="training steps of the global batch")
    p.add_argument("--batch-per-process", type=int, default=0, metavar="N",
                   help="rows per process a step (global batch N * processes); default: a "
                        "global batch of 64 however many processes")
    p.add_argument("--rounds", type=int, default=2,
                   help="times the four configurations run, taking turns")
    p.add_argument("--warmup", type=int, default=10,
                   help="PyTorch's untimed steps before the timed ones")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--binary", default="build/bin/paddle_like")
    p.add_argument("--data", default=DATA, help="directory of the Fashion-MNIST idx files")
    p.add_argument("--json", metavar="OUT", help="write every figure to OUT")
    p.add_argument("--variant", action="append", default=[], metavar="FLAG=VALUE",
                   help="also run paddle_like on 2 processes with this environment variable")
    args = p.parse_args()
    for v in args.variant:
        if "=" not in v or not v.split("=", 1)[0]:
            p.error(f"--variant takes FLAG=VALUE, not '{v}'")
    if args.steps < 1 or args.rounds < 1 or args.warmup < 0 or args.batch_per_process < 0:
        p.error("--steps and --rounds must be at least 1, --warmup and --batch-per-process at "
                "least 0")
    if int(torch.__version__.split(".")[0]) < 2:
        sys.exit(f"data_parallel_vs_pytorch: PyTorch {torch.__version__} found, 2.x expected: "
                 "run it with the python of scripts/reference_env.sh --with-torch")
    if not dist.is_gloo_available():
        sys.exit("data_parallel_vs_pytorch: this PyTorch has no Gloo backend")
    runs = {c: [] for c in CONFIGS}
    variant_runs = {v: [] for v in args.variant}
    tmp = tempfile.mkdtemp(prefix="data_parallel_vs_pytorch.")
    try:
        for r in range(args.rounds):
            for framework, nranks in CONFIGS:
                run = run_paddle_like if framework == "paddle_like" else run_torch
                result = run(nranks, args, tmp)
                runs[(framework, nranks)].append(result)
                print(f"round {r + 1}: {framework} {nranks} proc: "
                      f"{result['samples_per_second']:.0f} samples/s", flush=True)
                if (framework, nranks) == ("paddle_like", 2):
                    for v in args.variant:
                        result = run_paddle_like(2, args, tmp, v)
                        variant_runs[v].append(result)
                        print(f"round {r + 1}: paddle_like 2 procs, {v}: "
                              f"{result['samples_per_second']:.0f} samples/s", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    sps = {c: [x["samples_per_second"] for x in runs[c]] for c in CONFIGS}
    efficiency = {f: [two / (2 * one) for one, two in zip(sps[(f, 1)], sps[(f, 2)])]
                  for f in ("paddle_like", "pytorch")}
    ratio = {n: [o / t for o, t in zip(sps[("paddle_like", n)], sps[("pytorch", n)])]
             for n in (1, 2)}

    batches = (f"{args.batch_per_process} rows per process (global batch "
               f"{global_batch(1, args)} and {global_batch(2, args)})" if args.batch_per_process
               else f"global batch {BATCH}")
    print(f"\nLeNet on Fashion-MNIST, {batches}, adam, float32, 1 thread per process, "
          f"{args.steps} steps, {args.rounds} round(s), torch {torch.__version__} "
          f"(Gloo; {args.warmup} warm-up steps untimed), {os.cpu_count()} CPUs\n")
    head = [f"round {r + 1}" for r in range(args.rounds)]
    print("| configuration | " + " | ".join(head) +
          " | median samples/s | scaling efficiency | paddle_like / PyTorch |")
    print("|---" * (len(head) + 4) + "|")
    for framework, nranks in CONFIGS:
        name = f"{framework} {nranks} proc{'s' if nranks > 1 else ''}"
        cells = [f"{v:.0f}" for v in sps[(framework, nranks)]]
        eff = spread(efficiency[framework]) if nranks > 1 else "-"
        rat = spread(ratio[nranks]) if framework == "paddle_like" else "-"
        print(f"| {name} | " + " | ".join(cells) +
              f" | {statistics.median(sps[(framework, nranks)]):.0f} | {eff} | {rat} |")
        if (framework, nranks) == ("paddle_like", 2):
            for v in args.variant:
                figures = [x["samples_per_second"] for x in variant_runs[v]]
                eff_v = [two / (2 * one) for one, two in zip(sps[("paddle_like", 1)], figures)]
                print(f"| paddle_like 2 procs, {v} | " +
                      " | ".join(f"{x:.0f}" for x in figures) +
                      f" | {statistics.median(figures):.0f} | {spread(eff_v)} | - |")
    warm = {n: [x["samples_per_second_with_warmup"] for x in runs[("pytorch", n)]]
            for n in (1, 2)}
    print(f"\nPyTorch with its warm-up steps counted: 1 proc "
          f"{statistics.median(warm[1]):.0f}, 2 procs {statistics.median(warm[2]):.0f} samples/s "
          f"(medians)")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": "lenet", "batch_size": {str(n): global_batch(n, args) for n in (1, 2)},
                       "steps": args.steps,
                       "warmup_steps_pytorch": args.warmup, "rounds": args.rounds,
                       "threads_per_process": 1, "torch": torch.__version__,
                       "cpus": os.cpu_count(),
                       "runs": {f"{f}_{n}": runs[(f, n)] for f, n in CONFIGS},
                       "variant_runs": variant_runs,
                       "median_samples_per_second":
                           {f"{f}_{n}": statistics.median(sps[(f, n)]) for f, n in CONFIGS},
                       "scaling_efficiency": efficiency,
                       "ratio_paddle_like_over_pytorch": {str(n): ratio[n] for n in (1, 2)}},
                      f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
