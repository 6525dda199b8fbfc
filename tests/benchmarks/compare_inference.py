#!/usr/bin/env python3
"""Latency of the saved models under ../shared/models: paddle_like's inference library
(`paddle_like bench`) against PaddlePaddle's paddle.inference (oneDNN on) and ONNX Runtime
(the model converted by paddle2onnx), measured in the same run on the same machine.

    "$(scripts/reference_env.sh --with-onnx | tail -n1)" tests/benchmarks/compare_inference.py \
        [--models pplcnet_3cls,resnet_cifar10] [--batches 1,16] [--threads 1,2] [--repeat 50] \
        [--rounds 3] [--vision densenet121,mobilenet_v3_small]

For each model, batch and thread count: the median latency (ms) of `repeat` runs after 10
warm-up runs, inputs set once (uniform [0, 1) floats), each run followed by reading every
output into the caller's memory (paddle.inference's `copy_to_cpu`, `bench`'s `CopyToCpu`;
`session.run` returns its outputs so), and the ratio of paddle_like to the
faster of the two references. The three runtimes are measured one after the other, each in a
process of its own (so that no runtime's idle worker threads compete with the next one's),
and every configuration once per round, `rounds` rounds (default 3); each keeps its best
median: on a shared machine a neighbour's burst then slows one round, not one runtime or
configuration. Prints a Markdown table; `--json FILE` also writes the numbers.

`--vision NAMES` adds classifiers of paddle.vision.models (random weights, seeded), saved as
inference programs by this PaddlePaddle (`paddle.jit.save`, legacy format), to the models;
with `--models ""` only those run.
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
MODELS = os.path.join(os.path.dirname(ROOT), "shared", "models")
CLI = os.path.join(ROOT, "build", "bin", "paddle_like")

# Sizes for inputs that declare -1 beyond the batch (the size the model is deployed at).
SHAPE_OVERRIDES = {"ppocr_cls_v2": {"x": [3, 48, 192]}}


def model_files(d):
    """(program, params) paths of a model directory, params None for per-variable files."""
    names = os.listdir(d)
    for prog in ["inference.pdmodel", "model.pdmodel", "__model__"] + sorted(
            n for n in names if n.endswith(".pdmodel")):
        if prog in names:
            stem = prog[:-len(".pdmodel")] if prog.endswith(".pdmodel") else None
            for params in ([stem + ".pdiparams"] if stem else []) + ["__params__"]:
                if params in names:
                    return os.path.join(d, prog), os.path.join(d, params)
            return os.path.join(d, prog), None
    raise RuntimeError("no program in " + d)


def ours(model_dir, batch, threads, repeat, shapes_arg):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        cmd = [CLI, "bench", "--model", model_dir, "--batch", str(batch), "--threads",
               str(threads), "--warmup", "10", "--repeat", str(repeat), "--report", report.name]
        cmd += shapes_arg
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(report.name) as f:
            return json.load(f)


def time_calls(fn, repeat):
    for _ in range(10):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def paddle_latency(prog, params, inputs, threads, repeat):
    import paddle.inference as pi
    config = pi.Config(prog, params) if params else pi.Config(os.path.dirname(prog))
    config.disable_gpu()
    config.enable_mkldnn()
    config.set_cpu_math_library_num_threads(threads)
    config.switch_ir_optim(True)
    config.disable_glog_info()
    predictor = pi.create_predictor(config)
    for name, value in inputs.items():
        h = predictor.get_input_handle(name)
        h.reshape(list(value.shape))
        h.copy_from_cpu(value)
    outputs = [predictor.get_output_handle(n) for n in predictor.get_output_names()]

    # Like session.run and `paddle_like bench`, a run includes reading the outputs: with
    # oneDNN, paddle.inference leaves them in oneDNN's layout until copy_to_cpu reorders them.
    def run_and_fetch():
        predictor.run()
        for h in outputs:
            h.copy_to_cpu()
    return time_calls(run_and_fetch, repeat)


def onnx_latency(onnx_path, inputs, threads, repeat):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
    return time_calls(lambda: session.run(None, inputs), repeat)


def convert_to_onnx(prog, params, out):
    cmd = ["paddle2onnx", "--model_dir", os.path.dirname(prog), "--model_filename",
           os.path.basename(prog), "--save_file", out]
    if params:
        cmd += ["--params_filename", os.path.basename(params)]
    bin_dir = os.path.dirname(sys.executable)
    cmd[0] = os.path.join(bin_dir, "paddle2onnx")
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode == 0 and os.path.exists(out)


def export_vision_models(names, out_dir):
    """Saves each paddle.vision.models classifier in `names` under out_dir/<name>/."""
    import paddle
    import paddle.vision.models as vision
    dirs = {}
    for name in names:
        paddle.seed(0)
        model = getattr(vision, name)()
        model.eval()
        size = 299 if name.startswith("inception") else 224
        d = os.path.join(out_dir, name)
        paddle.jit.save(model, os.path.join(d, "inference"),
                        input_spec=[paddle.static.InputSpec([None, 3, size, size], "float32", "x")])
        dirs[name] = d
    return dirs


def best(values):
    values = [v for v in values if v is not None]
    return min(values) if values else None


def keep_best(row, key, value):
    """Keeps the smaller of row[key] and value (None: no figure)."""
    if value is not None and (row.get(key) is None or value < row[key]):
        row[key] = value
    row.setdefault(key, None)


def in_own_process(runtime, model_file, params, inputs_file, threads, repeat):
    """The latency of one reference runtime, measured in a process of its own.

    Both references keep worker threads spinning after a run (paddle.inference's OpenMP for
    200 ms, ONNX Runtime's pool while it waits for work): measured in one process, one
    after the other, the second's two threads met the first's spinning worker on a 2-core
    machine. A fresh process per measurement gives each runtime the machine to itself, as
    `paddle_like bench` has it."""
    cmd = [sys.executable, os.path.abspath(__file__), "--measure-one", runtime, "--file",
           model_file, "--params", params or "", "--inputs", inputs_file, "--threads",
           str(threads), "--repeat", str(repeat)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else
                           "exit code %d" % r.returncode)
    return float(r.stdout.strip().splitlines()[-1])


def measure_one(args):
    """--measure-one: prints the median latency of one runtime on the saved inputs."""
    with np.load(args.inputs) as npz:
        inputs = {k: npz[k] for k in npz.files}
    threads = int(args.threads)
    if args.measure_one == "paddle":
        value = paddle_latency(args.file, args.params or None, inputs, threads, args.repeat)
    else:
        value = onnx_latency(args.file, inputs, threads, args.repeat)
    print("%.6f" % value)


def measure(row, name, d, prog, params, onnx_path, has_onnx, batch, threads, repeat, shapes):
    """One round: paddle_like, paddle.inference and ONNX Runtime at `threads`, into `row`,
    each in a process of its own."""
    r = ours(d, batch, threads, repeat, shapes)
    inputs_file = os.path.join(os.path.dirname(onnx_path), "%s_b%d_inputs.npz" % (name, batch))
    np.savez(inputs_file, **{k: np.random.rand(*v).astype("float32")
                             for k, v in r["inputs"].items()})
    keep_best(row, "paddle_like_%d" % threads, r["p50_ms"])
    try:
        keep_best(row, "paddle_%d" % threads,
                  in_own_process("paddle", prog, params, inputs_file, threads, repeat))
    except Exception as e:  # A model the reference cannot run: no figure.
        print("paddle.inference failed on %s: %s" % (name, e), file=sys.stderr)
        keep_best(row, "paddle_%d" % threads, None)
    value = None
    if has_onnx:
        try:
            value = in_own_process("onnx", onnx_path, None, inputs_file, threads, repeat)
        except Exception as e:  # A conversion ONNX Runtime cannot load.
            print("onnxruntime failed on %s: %s" % (name, e), file=sys.stderr)
    keep_best(row, "onnxruntime_%d" % threads, value)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=",".join(sorted(
        d for d in os.listdir(MODELS) if os.path.isdir(os.path.join(MODELS, d)))))
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--vision", default="")
    ap.add_argument("--json")
    # One reference measurement in a child process (see in_own_process).
    ap.add_argument("--measure-one", choices=["paddle", "onnx"], help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    ap.add_argument("--params", help=argparse.SUPPRESS)
    ap.add_argument("--inputs", help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.setdefault("FLAGS_enable_pir_api", "0")
    if args.measure_one:
        measure_one(args)
        return
    batches = [int(b) for b in args.batches.split(",")]
    thread_counts = [int(t) for t in args.threads.split(",")]
    rows = []
    tmp = tempfile.mkdtemp()
    runs = []  # (row, model, batch, threads, shapes): each measured once per round.
    models = {}
    model_dirs = {name: os.path.join(MODELS, name) for name in args.models.split(",") if name}
    if args.vision:
        model_dirs.update(export_vision_models(args.vision.split(","), tmp))
    for name, d in model_dirs.items():
        prog, params = model_files(d)
        onnx_path = os.path.join(tmp, name + ".onnx")
        models[name] = {"dir": d, "prog": prog, "params": params, "onnx": onnx_path,
                        "has_onnx": convert_to_onnx(prog, params, onnx_path)}
        shapes_arg = []
        for input_name, dims in SHAPE_OVERRIDES.get(name, {}).items():
            shapes_arg = ["--shape", "%s=%s" % (input_name, "x".join(map(str, [1] + dims)))]
        for batch in batches:
            batch_shapes = [a.replace("=1x", "=%dx" % batch) if a.startswith(tuple(
                SHAPE_OVERRIDES.get(name, {}))) else a for a in shapes_arg]
            row = {"model": name, "batch": batch}
            rows.append(row)
            runs += [(row, name, batch, threads, batch_shapes) for threads in thread_counts]
    # Rounds outermost: the rounds of one configuration lie minutes apart, so a slow spell
    # of the machine slows one of them, not all.
    for r in range(args.rounds):
        for row, name, batch, threads, batch_shapes in runs:
            m = models[name]
            measure(row, name, m["dir"], m["prog"], m["params"], m["onnx"], m["has_onnx"], batch,
                    threads, args.repeat, batch_shapes)
            m["has_onnx"] = m["has_onnx"] and row.get("onnxruntime_%d" % threads) is not None
        print("done: round %d of %d" % (r + 1, args.rounds), file=sys.stderr)

    def fmt(v):
        return "-" if v is None else ("%.3f" % v)

    print("| model | batch | " + " | ".join(
        "paddle_like %dT | paddle.inference %dT | ONNX Runtime %dT" % (t, t, t)
        for t in thread_counts) + " | paddle_like best / faster reference best |")
    print("|---|---:|" + "---:|" * (3 * len(thread_counts) + 1))
    for row in rows:
        cells = []
        for t in thread_counts:
            cells += [fmt(row["paddle_like_%d" % t]), fmt(row["paddle_%d" % t]),
                      fmt(row["onnxruntime_%d" % t])]
        ours_best = best([row["paddle_like_%d" % t] for t in thread_counts])
        ref_best = best([row["%s_%d" % (k, t)] for k in ("paddle", "onnxruntime")
                         for t in thread_counts])
        ratio = "-" if ref_best is None else "%.2f" % (ours_best / ref_best)
        print("| %s | %d | %s | %s |" % (row["model"], row["batch"], " | ".join(cells), ratio))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
