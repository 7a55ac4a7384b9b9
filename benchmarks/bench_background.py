"""Wall time of short scripts: NumPy, jit with a sync compile, jit with a background compile.

    python benchmarks/bench_background.py            # 3 interleaved repeats
    python benchmarks/bench_background.py --repeats 5

Each measurement is one fresh process with an empty disk cache (the cold
case a new user meets) that imports numpy (and jitaic), makes the workload's
arguments and calls its function N times (N = 1, 3, 10, 100); the time is
the whole process's, start-up and exit included. ``background`` is
``jitaic.jit(fn, compile="background")``: calls run the function itself
(a gradient: the reference interpreter over its graph) until the compiled
code is ready, then the compiled code. Medians of interleaved repeats.

Issue #18, item 4: background becomes the default if it is never more than
10% slower than sync on these scripts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CALLS = (1, 3, 10, 100)
MODES = ("numpy", "sync", "background")


def softmax_rows(x):
    z = x - x.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def heat_steps(u, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


def running_energy(x):
    """A Python loop over elements: slow as NumPy code, jitaic's loop case."""
    total = 0.0
    for i in range(1, x.shape[0]):
        d = x[i] - x[i - 1]
        total += d * d
    return total


def mlp_loss(w1, w2, x, y):
    h = np.tanh(x @ w1)
    return ((h @ w2 - y) ** 2).mean()


def mlp_grad_by_hand(w1, w2, x, y):
    """NumPy's column for the gradient: the backward pass written out."""
    h = np.tanh(x @ w1)
    dr = 2.0 * (h @ w2 - y) / y.size
    return x.T @ ((dr @ w2.T) * (1.0 - h * h)), h.T @ dr


def _workloads():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(512, 512))
    u = rng.normal(size=20_000)
    w1, w2 = rng.normal(size=(64, 32)) / 8, rng.normal(size=(32, 4)) / 6
    xs, ys = rng.normal(size=(256, 64)), rng.normal(size=(256, 4))
    return {
        "softmax_rows 512x512": (softmax_rows, (x,), None),
        "heat_steps 20000 x 50": (heat_steps, (u, 50), None),
        "running_energy 1e6": (running_energy, (rng.normal(size=1_000_000),), None),
        "mlp_grad 256x64x32": (mlp_loss, (w1, w2, xs, ys), (0, 1)),  # NumPy: by hand
    }


def child(name: str, mode: str, calls: int) -> None:
    fn, args, argnums = _workloads()[name]
    if mode == "numpy" and argnums is not None:
        fn = mlp_grad_by_hand
    elif mode != "numpy":
        import jitaic

        if argnums is not None:
            fn = jitaic.grad(fn, argnums=argnums)
        fn = jitaic.jit(fn, compile=mode, mode="ast" if "running" in name else "auto",
                        static_argnums=(1,) if "heat" in name else ())
    for _ in range(calls):
        fn(*args)


def _time(name: str, mode: str, calls: int) -> float:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as cache:
        env["JITAIC_CACHE_DIR"] = cache
        start = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--child", name, mode, str(calls)],
                       env=env, check=True)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", nargs=3)
    opts = parser.parse_args()
    if opts.child:
        name, mode, calls = opts.child
        child(name, mode, int(calls))
        return
    sys.path.insert(0, HERE)
    from harness import cpu_model

    print(f"# Script wall time, cold (empty disk cache); {cpu_model()}, "
          f"{os.cpu_count()} cpus; median of {opts.repeats} interleaved repeats\n")
    print("| workload | calls | NumPy s | sync s | background s | background / sync |")
    print("|---|---:|---:|---:|---:|---:|")
    worst = 0.0
    for name in _workloads():
        for calls in CALLS:
            times: dict[str, list[float]] = {m: [] for m in MODES}
            for _ in range(opts.repeats):
                for mode in MODES:
                    times[mode].append(_time(name, mode, calls))
            med = {m: statistics.median(t) for m, t in times.items()}
            ratio = med["background"] / med["sync"]
            worst = max(worst, ratio)
            print(f"| {name} | {calls} | {med['numpy']:.2f} | {med['sync']:.2f} | "
                  f"{med['background']:.2f} | {ratio:.2f} |", flush=True)
    print(f"\nworst background / sync: {worst:.2f}")


if __name__ == "__main__":
    main()
