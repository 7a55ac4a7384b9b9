"""Core benchmarks: NumPy vs a hand-written numba loop vs jitaic (vs jax.jit).

    python benchmarks/bench_core.py            # full run, a few minutes at most
    python benchmarks/bench_core.py --quick    # fewer repeats and smaller sizes, < 1 minute
    python benchmarks/bench_core.py --filter softmax

Everything runs side by side in one process, float64 throughout.  Before any
timing, every implementation's result is checked against NumPy; a wrong or
failing implementation is reported as such and not timed (exit status 1).

Each timing is the median over repeats of the mean time of a batch of calls
(batches are sized to last at least a few milliseconds, so microsecond-scale
workloads are measured above the timer's noise), after a warm-up call.

The "numba" column is a hand-written ``numba.njit`` loop with default options
(no fastmath, like jitaic), i.e. the code a careful user would write by hand.
The "jax" column appears only when ``import jax`` succeeds; jax is never a
dependency of jitaic.  "first call" is the time of the first call of a fresh
jit function: trace + optimise + codegen + numba compile + one run.

BLAS runs single-threaded unless OPENBLAS_NUM_THREADS / OMP_NUM_THREADS /
MKL_NUM_THREADS are set: numba's np.dot calls scipy's BLAS, numpy calls its own,
and two spinning thread pools on a small machine slow each other down by 2x or
more.  The compiled loops (numba, jitaic) are single-threaded too, so this
compares code generation, not thread counts.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

# must happen before numpy/scipy load their BLAS (see the module docstring)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402

import jitaic  # noqa: E402

try:  # optional comparison only
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
except Exception:  # any import problem just drops the column
    jax = None
    jnp = None


# --------------------------------------------------------------------------
# workloads: (NumPy reference, hand-written numba loop, jax version)
# --------------------------------------------------------------------------


def chain_np(x, y):
    return (2 * x + y) * (x - y) + 3 * y**2


def chain_loop(x, y):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        a = x[i]
        b = y[i]
        out[i] = (2 * a + b) * (a - b) + 3 * (b * b)
    return out


def chain_jax(x, y):
    return (2 * x + y) * (x - y) + 3 * y**2


def tanh_exp_np(x):
    return np.tanh(1.5 * x + 0.5) * np.exp(-x * x) + 0.5 * x


def tanh_exp_loop(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        a = x[i]
        out[i] = np.tanh(1.5 * a + 0.5) * np.exp(-a * a) + 0.5 * a
    return out


def tanh_exp_jax(x):
    return jnp.tanh(1.5 * x + 0.5) * jnp.exp(-x * x) + 0.5 * x


def sumsq_np(x):
    return np.sum(x * x)


def sumsq_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return s


def sumsq_jax(x):
    return jnp.sum(x * x)


def variance_np(x):
    d = x - x.mean()
    return (d * d).mean()


def variance_loop(x):
    n = x.shape[0]
    m = 0.0
    for i in range(n):
        m += x[i]
    m /= n
    s = 0.0
    for i in range(n):
        d = x[i] - m
        s += d * d
    return s / n


def variance_jax(x):
    d = x - x.mean()
    return (d * d).mean()


def softmax_np(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_loop(x):
    n, m = x.shape
    out = np.empty_like(x)
    for i in range(n):
        mx = x[i, 0]
        for j in range(1, m):
            if x[i, j] > mx:
                mx = x[i, j]
        s = 0.0
        for j in range(m):
            e = np.exp(x[i, j] - mx)
            out[i, j] = e
            s += e
        for j in range(m):
            out[i, j] = out[i, j] / s
    return out


def softmax_jax(x):
    e = jnp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def mlp_np(x, w1, b1, w2, b2):
    h = np.tanh(x @ w1 + b1)
    z = h @ w2 + b2
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def mlp_loop(x, w1, b1, w2, b2):
    h = np.dot(x, w1)  # BLAS, as numba users do
    n, k = h.shape
    for i in range(n):
        for j in range(k):
            h[i, j] = np.tanh(h[i, j] + b1[j])
    z = np.dot(h, w2)
    c = z.shape[1]
    for i in range(n):
        mx = -np.inf
        for j in range(c):
            z[i, j] += b2[j]
            if z[i, j] > mx:
                mx = z[i, j]
        s = 0.0
        for j in range(c):
            z[i, j] = np.exp(z[i, j] - mx)
            s += z[i, j]
        for j in range(c):
            z[i, j] = z[i, j] / s
    return z


def mlp_jax(x, w1, b1, w2, b2):
    h = jnp.tanh(x @ w1 + b1)
    z = h @ w2 + b2
    e = jnp.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@dataclass
class Workload:
    name: str
    size: str
    make: Callable[[np.random.Generator], tuple]
    numpy_fn: Callable
    loop_fn: Callable  # plain Python; compiled with a fresh numba.njit per row
    jax_fn: Callable
    rtol: float = 1e-10
    atol: float = 1e-12


def _vectors(n: int, count: int):
    return lambda rng: tuple(rng.standard_normal(n) for _ in range(count))


def _mlp_inputs(rng):
    x = rng.standard_normal((256, 784))
    w1 = rng.standard_normal((784, 256)) / np.sqrt(784)
    b1 = rng.standard_normal(256) * 0.1
    w2 = rng.standard_normal((256, 10)) / np.sqrt(256)
    b2 = rng.standard_normal(10) * 0.1
    return x, w1, b1, w2, b2


OVERHEAD = Workload("x + 1", "8", lambda rng: (), None, None, None)  # for the failure list
CHAIN = "chain (2x+y)(x-y)+3y^2"
TANH = "tanh(1.5x+.5)exp(-x^2)+.5x"


def workloads(quick: bool) -> list[Workload]:
    """The full set, or with --quick a smaller one (the 1e6 elementwise rows dropped)."""
    big, big_label, rows = (10**5, "1e5", 512) if quick else (10**6, "1e6", 2048)
    ws = [
        Workload(CHAIN, label, _vectors(n, 2), chain_np, chain_loop, chain_jax)
        for n, label in [(10**3, "1e3"), (10**5, "1e5"), (10**6, "1e6")]
        if not (quick and n == 10**6)
    ]
    ws += [
        Workload(TANH, label, _vectors(n, 1), tanh_exp_np, tanh_exp_loop, tanh_exp_jax)
        for n, label in [(10**5, "1e5"), (10**6, "1e6")]
        if not (quick and n == 10**6)
    ]
    # sequential and pairwise summation orders differ in the last digits: rtol 1e-9
    ws.append(
        Workload(
            "sum(x*x)", big_label, _vectors(big, 1), sumsq_np, sumsq_loop, sumsq_jax, rtol=1e-9
        )
    )
    ws.append(
        Workload(
            "variance",
            big_label,
            _vectors(big, 1),
            variance_np,
            variance_loop,
            variance_jax,
            rtol=1e-9,
        )
    )
    ws.append(
        Workload(
            "row softmax",
            f"{rows}x1024",
            lambda rng: (rng.standard_normal((rows, 1024)) * 3.0,),
            softmax_np,
            softmax_loop,
            softmax_jax,
        )
    )
    ws.append(
        Workload("MLP fwd 784-256-10", "256x784", _mlp_inputs, mlp_np, mlp_loop, mlp_jax, rtol=1e-8)
    )
    return ws


# --------------------------------------------------------------------------
# timing and checking
# --------------------------------------------------------------------------


def batch_size(fn: Callable, args: tuple, min_batch_s: float) -> int:
    """How many calls of a warm ``fn`` make one timed batch of at least ``min_batch_s``."""
    t0 = time.perf_counter()
    fn(*args)
    one = max(time.perf_counter() - t0, 1e-7)
    return max(1, math.ceil(min_batch_s / one))


def time_interleaved(
    fns: dict[str, tuple[Callable, tuple]], repeats: int, min_batch_s: float
) -> dict[str, float]:
    """Median seconds per call of each warm function.

    The implementations take turns, one batch each per round, so a slow phase
    of a shared machine hits all of them alike instead of one column.
    """
    number = {k: batch_size(fn, args, min_batch_s) for k, (fn, args) in fns.items()}
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for k, (fn, args) in fns.items():
            n = number[k]
            t0 = time.perf_counter()
            for _ in range(n):
                fn(*args)
            samples[k].append((time.perf_counter() - t0) / n)
    return {k: statistics.median(v) for k, v in samples.items()}


def first_call(fn: Callable, args: tuple) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


def check(expected, got, w: Workload) -> None:
    got = np.asarray(got)
    expected = np.asarray(expected)
    if got.shape != expected.shape:
        raise AssertionError(f"shape {got.shape} != NumPy's {expected.shape}")
    if got.dtype != expected.dtype:
        raise AssertionError(f"dtype {got.dtype} != NumPy's {expected.dtype}")
    np.testing.assert_allclose(got, expected, rtol=w.rtol, atol=w.atol)


@dataclass
class Cell:
    run_ms: float | None = None
    first_s: float | None = None
    error: str | None = None


def jax_impl(w: Workload) -> Callable:
    jitted = jax.jit(w.jax_fn)

    def call(*args):
        return jitted(*args).block_until_ready()

    return call


def prepare(w: Workload, impl: str, args: tuple, expected) -> tuple[Cell, Callable, tuple]:
    """Build a fresh ``impl`` of ``w``, time its first call and check it against NumPy."""
    cell, fn = Cell(), None
    try:
        if impl == "numpy":
            fn = w.numpy_fn
        elif impl == "numba":
            fn = numba.njit(w.loop_fn)  # fresh dispatcher: first call compiles
        elif impl == "jitaic":
            fn = jitaic.jit(w.numpy_fn)  # fresh JitFunction: first call compiles
        else:
            fn, args = jax_impl(w), tuple(jnp.asarray(a) for a in args)
        cell.first_s, out = first_call(fn, args)
        check(expected, out, w)
    except Exception as exc:  # reported in the table and the summary
        msg = str(exc).strip().splitlines()
        cell.error = f"{type(exc).__name__}: {msg[0] if msg else ''}"
    return cell, fn, args


def run_workload(w: Workload, impls: list[str], rng, repeats: int, min_batch_s: float):
    args = w.make(rng)
    expected = w.numpy_fn(*args)
    cells, ready = {}, {}
    for impl in impls:
        cells[impl], fn, impl_args = prepare(w, impl, args, expected)
        if cells[impl].error is None:
            ready[impl] = (fn, impl_args)
    for impl, t in time_interleaved(ready, repeats, min_batch_s).items():
        cells[impl].run_ms = 1e3 * t
    return cells


def per_call_overhead(repeats: int) -> dict[str, float]:
    """Microseconds per cached call of ``x + 1`` on an 8-element array."""
    x = np.arange(8.0)

    def add_one(x):
        return x + 1

    impls = {
        "numpy": add_one,
        "numba": numba.njit(add_one),
        "jitaic": jitaic.jit(add_one),
    }
    if jax is not None:
        jitted = jax.jit(add_one)
        jx = jnp.asarray(x)
        impls["jax"] = lambda _x: jitted(jx).block_until_ready()
    ready, out = {}, {}
    for name, fn in impls.items():
        try:
            np.testing.assert_array_equal(np.asarray(fn(x)), x + 1)
            ready[name] = (fn, (x,))
        except Exception as exc:
            out[name] = float("nan")
            print(f"overhead/{name} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    for name, t in time_interleaved(ready, repeats, min_batch_s=0.02).items():
        out[name] = 1e6 * t
    return {name: out[name] for name in impls}


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def fmt_ms(c: Cell | None) -> str:
    if c is None:
        return "-"
    if c.error is not None:
        return "FAIL"
    return f"{c.run_ms:.3f}" if c.run_ms < 10 else f"{c.run_ms:.1f}"


def fmt_s(c: Cell | None) -> str:
    if c is None:
        return "-"
    if c.error is not None:
        return "FAIL"
    return f"{c.first_s:.2f}"


def ratio(a: Cell | None, b: Cell | None) -> str:
    if a is None or b is None or a.run_ms is None or b.run_ms is None:
        return "-"
    return f"{a.run_ms / b.run_ms:.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats, smaller sizes")
    ap.add_argument("--repeats", type=int, default=None, help="default 21; 7 with --quick")
    ap.add_argument("--filter", default="", help="only workloads whose name contains this")
    opts = ap.parse_args(argv)
    repeats = opts.repeats or (7 if opts.quick else 21)
    min_batch_s = 0.005 if opts.quick else 0.02

    impls = ["numpy", "numba", "jitaic"] + (["jax"] if jax is not None else [])
    print(f"# jitaic core benchmarks{' (--quick)' if opts.quick else ''}")
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"numba {numba.__version__}, jitaic {jitaic.__version__}"
        + (f", jax {jax.__version__}" if jax is not None else ", jax not installed")
        + f"; {platform.machine()}, {os.cpu_count()} cpus; "
        f"BLAS threads {os.environ['OPENBLAS_NUM_THREADS']}; "
        f"median of {repeats} repeats; float64\n"
    )

    # one-time costs (numba's first compile in a process, jitaic's imports) are paid here,
    # not by whichever implementation happens to compile first
    numba.njit(lambda a: a + 1)(np.ones(2))
    jitaic.jit(lambda a: a * 2.0)(np.ones(2))

    rng = np.random.default_rng(0)
    results: list[tuple[Workload, dict[str, Cell]]] = []
    t_start = time.perf_counter()
    for w in workloads(opts.quick):
        if opts.filter and opts.filter not in w.name:
            continue
        cells = run_workload(w, impls, rng, repeats, min_batch_s)
        results.append((w, cells))
        print(
            f"  done {w.name} [{w.size}]  "
            + "  ".join(f"{k}={fmt_ms(c)}" for k, c in cells.items()),
            file=sys.stderr,
            flush=True,
        )

    print("## Cached-call time (ms per call; lower is better)\n")
    print(
        "| workload | size | numpy ms | numba ms | jitaic ms | jax ms "
        "| jitaic/numba | numpy/jitaic |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for w, c in results:
        print(
            f"| {w.name} | {w.size} | {fmt_ms(c['numpy'])} | {fmt_ms(c['numba'])} "
            f"| {fmt_ms(c['jitaic'])} | {fmt_ms(c.get('jax'))} "
            f"| {ratio(c['jitaic'], c['numba'])} | {ratio(c['numpy'], c['jitaic'])} |"
        )

    print("\n## First call of a fresh jit function (s: compile + one run)\n")
    print("| workload | size | numba s | jitaic s | jax s |")
    print("|---|---|---:|---:|---:|")
    for w, c in results:
        print(
            f"| {w.name} | {w.size} | {fmt_s(c['numba'])} | {fmt_s(c['jitaic'])} "
            f"| {fmt_s(c.get('jax'))} |"
        )

    print("\n## Per-call overhead: cached `x + 1` on an 8-element array (µs per call)\n")
    over = per_call_overhead(repeats)
    print("| " + " | ".join(over) + " |")
    print("|" + "---:|" * len(over))
    print("| " + " | ".join(f"{v:.2f}" for v in over.values()) + " |")

    failures = [
        (w, impl, c.error)
        for w, cells in results
        for impl, c in cells.items()
        if c.error is not None
    ]
    failures += [(OVERHEAD, impl, "failed") for impl, v in over.items() if math.isnan(v)]
    if failures:
        print("\n## Failures (not timed)\n")
        for w, impl, err in failures:
            print(f"- {impl} on {w.name} [{w.size}]: {err}")
    print(f"\n(total benchmark time {time.perf_counter() - t_start:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
