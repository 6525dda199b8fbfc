#!/usr/bin/env python3
"""Loads the damaged models of a mutation sweep in PaddlePaddle and compares its verdicts with
paddle_like's: what PaddlePaddle refuses, paddle_like must refuse too.

The sweep keeps its cases with --keep-all (each directory has a case.json: the damaged
program or parameters, the feeds, and how `paddle_like run` ended):

    build/tests/fuzz/mutation_sweep --paddle-like build/bin/paddle_like --verb infer \\
        --models ../shared/models --cases 700 --seed 7 --work /tmp/sweep --keep-all
    "$(scripts/reference_env.sh | tail -n1)" tests/compat/compare_refusals.py /tmp/sweep

`--verb infer` runs paddle_like's inference library, passes included, which is what
PaddlePaddle's side runs: each case in a PaddlePaddle worker process (paddle.inference:
create the predictor, feed, run, fetch); a worker that dies or passes --timeout is replaced,
and the case counts as a crash or a hang. An error of PaddlePaddle's kernels at run time
(FAULTS) is its own failure, not a refusal of the files. Cases PaddlePaddle cannot be given
(/dev/zero as a file, damaged .npy feeds, which numpy reads there) are left out.
Prints a table of PaddlePaddle's outcome against paddle_like's per kind of damage, then every
case that PaddlePaddle refused and paddle_like ran; exits 1 if there is any.
"""
import argparse
import glob
import json
import os
import resource
import select
import subprocess
import sys

PADDLE_OUTCOMES = ("ok", "error", "fault", "crash", "hang")
# PaddlePaddle's own failures on a program it accepted (a oneDNN primitive it cannot create
# or run once its passes rewrote the program, as with a duplicated op): not refusals.
FAULTS = ("could not execute a primitive", "could not create a primitive descriptor")


def case_files(case, base):
    """The case's paths, moved to `base` (a failing case's directory was renamed)."""
    def moved(p):
        return base + p[len(case["dir"]):] if p.startswith(case["dir"]) else p
    program = moved(case["program"])
    params = moved(case["params"])
    if not params and program.endswith(".pdmodel"):
        combined = program[: -len(".pdmodel")] + ".pdiparams"
        if os.path.exists(combined):
            params = combined
    feeds = [(name, moved(path)) for name, path in case["feeds"]]
    return program, params, feeds


def run_in_paddle(program, params, feeds):
    import numpy as np
    import paddle.inference as pi
    if params:
        config = pi.Config(program, params)
    else:
        config = pi.Config(os.path.dirname(program))
    config.disable_glog_info()
    config.set_cpu_math_library_num_threads(1)
    predictor = pi.create_predictor(config)
    for name, path in feeds:
        value = np.load(path)
        handle = predictor.get_input_handle(name)
        handle.reshape(value.shape)
        handle.copy_from_cpu(value)
    predictor.run()
    for name in predictor.get_output_names():
        predictor.get_output_handle(name).copy_to_cpu()


def worker():
    # A damaged shape may ask for terabytes: fail the allocation, not the machine.
    limit = 16 << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    # Answers go through a copy of stdout; what PaddlePaddle prints goes to stderr.
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    import paddle  # noqa: F401  (imported once, before the first case)
    print("ready", file=answers, flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        try:
            run_in_paddle(job["program"], job["params"], job["feeds"])
            result = {"outcome": "ok", "detail": ""}
        except BaseException as e:  # Paddle raises many types; every one is a refusal.
            text = " ".join(str(e).split())
            fault = any(f in text for f in FAULTS)
            result = {"outcome": "fault" if fault else "error",
                      "detail": (type(e).__name__ + ": " + text)[:300]}
        print(json.dumps(result), file=answers, flush=True)


class Worker:
    def __init__(self):
        env = dict(os.environ)
        env.setdefault("FLAGS_enable_pir_api", "0")
        env.setdefault("GLOG_minloglevel", "3")
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=env)
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the PaddlePaddle worker did not start")

    def run(self, job, timeout):
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            return {"outcome": "hang", "detail": "no answer in %d s" % timeout}
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            return {"outcome": "crash", "detail": "worker exit %d" % code}
        return json.loads(line)

    def alive(self):
        return self.proc.poll() is None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work", nargs="?", help="the sweep's --work directory")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--json", help="write every case's pair of outcomes here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker()
        return 0
    if not args.work:
        ap.error("the sweep's work directory is required")

    paths = sorted(glob.glob(os.path.join(args.work, "case_*", "case.json")) +
                   glob.glob(os.path.join(args.work, "failures", "case_*", "case.json")))
    if not paths:
        print("no case.json under %s: run the sweep with --keep-all" % args.work, file=sys.stderr)
        return 2
    results = []
    w = None
    for n, path in enumerate(paths):
        case = json.load(open(path))
        program, params, feeds = case_files(case, os.path.dirname(path))
        if "/dev/zero" in (program, params) or any(p == "/dev/zero" for _, p in feeds):
            continue  # PaddlePaddle would read the endless file.
        if case["kind"] == "feed":
            continue  # .npy parsing is numpy's in PaddlePaddle, not its loader's.
        if w is None or not w.alive():
            w = Worker()
        r = w.run({"program": program, "params": params, "feeds": feeds}, args.timeout)
        results.append({"id": case["id"], "model": case["model"], "kind": case["kind"],
                        "what": case["what"], "paddle_like": case["outcome"],
                        "paddle_like_detail": case["detail"], "paddle": r["outcome"],
                        "paddle_detail": r["detail"]})
        if (n + 1) % 50 == 0:
            print("%d / %d cases" % (n + 1, len(paths)), file=sys.stderr)

    kinds = sorted({r["kind"] for r in results})
    ours = sorted({r["paddle_like"] for r in results})
    print("%d cases: PaddlePaddle's outcome (rows) against paddle_like's (columns)" % len(results))
    for kind in kinds:
        print("\n%s:" % kind)
        print("  %-8s" % "" + "".join("%10s" % o for o in ours))
        for p in PADDLE_OUTCOMES:
            row = [sum(1 for r in results if r["kind"] == kind and r["paddle"] == p and
                       r["paddle_like"] == o) for o in ours]
            if any(row):
                print("  %-8s" % p + "".join("%10d" % c for c in row))
    missed = [r for r in results if r["paddle"] == "error" and r["paddle_like"] == "ok"]
    print("\nrefused by PaddlePaddle, run by paddle_like: %d" % len(missed))
    for r in missed:
        print("  case %d [%s, %s: %s]\n    PaddlePaddle: %s" % (r["id"], r["model"], r["kind"],
                                                              r["what"], r["paddle_detail"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
