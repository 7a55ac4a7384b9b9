"""Core benchmarks: NumPy vs a hand-written numba loop vs jitaic (vs jax.jit).

    python benchmarks/bench_core.py            # full run, a few minutes at most
    python benchmarks/bench_core.py --quick    # fewer repeats and smaller sizes, < 1 minute
    python benchmarks/bench_core.py --filter softmax

Everything runs side by side in one process, float64 throughout (``--dtype
float32``: every array float32).  Before any
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
more.  The hand-written numba loops are single-threaded; jitaic runs large loop
nests on numba's threads, as it does by default, and the "serial" column is
jitaic with ``parallel=False`` (its parallel loops should never lose to it).
``--busy`` measures with another process spinning on one CPU, as on a shared
machine.

The timing, checking and table machinery is shared with the other benchmark
scripts in ``harness.py`` (next to this file).
"""

from __future__ import annotations

import math
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

import harness  # first: pins BLAS to one thread before numpy loads it
import numba
import numpy as np
from harness import (
    Cell,
    Options,
    fmt_s,
    jax,
    jax_impl,
    jitaic_impl,
    jnp,
    numba_impl,
    numpy_impl,
    print_table,
    time_interleaved,
)

import jitaic

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


def power_np(x, y):
    return (x * x + 1.0) ** -1.5 + np.abs(x) ** y


def power_loop(x, y):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        a = x[i]
        out[i] = (a * a + 1.0) ** -1.5 + abs(a) ** y[i]
    return out


def power_jax(x, y):
    return (x * x + 1.0) ** -1.5 + jnp.abs(x) ** y


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


def spectrum_np(x):
    return np.abs(np.fft.rfft(x)) ** 2


def spectrum_loop(x):
    """Each row's iterative radix-2 FFT (a power-of-two length), the first
    half of the power spectrum kept."""
    rows, n = x.shape
    out = np.empty((rows, n // 2 + 1))
    roots = np.exp(-2j * np.pi * np.arange(n // 2) / n)
    a = np.empty(n, np.complex128)
    bits = 0
    while (1 << bits) < n:
        bits += 1
    for row in range(rows):
        for i in range(n):  # bit-reversed order
            j, k = 0, i
            for _ in range(bits):
                j, k = (j << 1) | (k & 1), k >> 1
            a[j] = x[row, i]
        size = 2
        while size <= n:
            half, step = size // 2, n // size
            for start in range(0, n, size):
                for k in range(half):
                    t = a[start + k + half] * roots[k * step]
                    a[start + k + half] = a[start + k] - t
                    a[start + k] = a[start + k] + t
            size *= 2
        for k in range(n // 2 + 1):
            out[row, k] = a[k].real ** 2 + a[k].imag ** 2
    return out


def spectrum_jax(x):
    return jnp.abs(jnp.fft.rfft(x)) ** 2


def layernorm_np(x):
    mu = x.mean(axis=1, keepdims=True)
    d = x - mu
    var = (d * d).mean(axis=1, keepdims=True)
    return d / np.sqrt(var + 1e-5)


def layernorm_loop(x):
    n, m = x.shape
    out = np.empty_like(x)
    for i in range(n):
        mu = 0.0
        for j in range(m):
            mu += x[i, j]
        mu /= m
        v = 0.0
        for j in range(m):
            d = x[i, j] - mu
            v += d * d
        inv = 1.0 / np.sqrt(v / m + 1e-5)
        for j in range(m):
            out[i, j] = (x[i, j] - mu) * inv
    return out


def layernorm_jax(x):
    mu = x.mean(axis=1, keepdims=True)
    d = x - mu
    return d / jnp.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5)


def sorted_median_np(x):
    s = np.sort(x)
    return s, s[s.size // 2]


def sorted_median_loop(x):
    s = np.sort(x)  # numba's own quicksort
    return s, s[s.size // 2]


def sorted_median_jax(x):
    s = jnp.sort(x)
    return s, s[s.size // 2]


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
POWER = "(x^2+1)^-1.5+|x|^y"


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
    ws += [
        Workload(POWER, label, _vectors(n, 2), power_np, power_loop, power_jax)
        for n, label in [(10**5, "1e5"), (10**6, "1e6")]
        if not (quick and n == 10**6)
    ]
    # sequential and pairwise summation orders differ in the last digits: rtol 1e-9
    ws.append(
        Workload(
            "sum(x*x)", big_label, _vectors(big, 1), sumsq_np, sumsq_loop, sumsq_jax, rtol=1e-9
        )
    )
    ws += [
        Workload("variance", label, _vectors(n, 1), variance_np, variance_loop, variance_jax,
                 rtol=1e-9)
        for n, label in [(big, big_label), (10**7, "1e7")] if not (quick and n == 10**7)
    ]
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
    ln_rows = 512 if quick else 4096
    ws.append(
        Workload("layer norm", f"{ln_rows}x1024",
                 lambda rng: (rng.standard_normal((ln_rows, 1024)),),
                 layernorm_np, layernorm_loop, layernorm_jax, rtol=1e-9)
    )
    ws.append(
        Workload("power spectrum |rfft|^2", f"{ln_rows // 8}x1024",
                 lambda rng: (rng.standard_normal((ln_rows // 8, 1024)),),
                 spectrum_np, spectrum_loop, spectrum_jax, rtol=1e-9, atol=1e-8)
    )
    ws.append(
        Workload("sort", big_label, _vectors(big, 1), sorted_median_np, sorted_median_loop,
                 sorted_median_jax)
    )
    ws.append(
        Workload("MLP fwd 784-256-10", "256x784", _mlp_inputs, mlp_np, mlp_loop, mlp_jax, rtol=1e-8)
    )
    return ws


# --------------------------------------------------------------------------
# running (timing, checking and formatting live in harness.py)
# --------------------------------------------------------------------------


def run_workload(w: Workload, impls: list[str], rng, opts: Options) -> dict[str, Cell]:
    args = harness.as_dtype(w.make(rng), opts.dtype)
    expected = w.numpy_fn(*args)
    builders = {
        "numpy": numpy_impl(w.numpy_fn),
        "numba": numba_impl(w.loop_fn),  # fresh dispatcher: first call compiles
        "jitaic": jitaic_impl(w.numpy_fn),  # fresh JitFunction: first call compiles
        "jax": jax_impl(w.jax_fn),
        harness.TORCH: harness.torch_impl(w.numpy_fn),
        harness.SERIAL: jitaic_impl(w.numpy_fn, parallel=False),
    }
    builders = {impl: builders[impl] for impl in impls}
    rtol, atol = harness.tolerances(w.rtol, w.atol, opts.dtype)
    return harness.run_impls(builders, args, expected, opts, rtol=rtol, atol=atol)


def per_call_overhead(repeats: int) -> dict[str, float]:
    """Microseconds per cached call of ``x + 1`` on an 8-element array."""
    x = np.arange(8.0)

    def add_one(x):
        return x + 1

    python_dispatch = jitaic.jit(add_one)
    with jitaic.config.override(hot_calls=0):  # decided on the first call: never hot
        python_dispatch(x)
    impls = {
        "numpy": add_one,
        "numba": numba.njit(add_one),
        "jitaic": jitaic.jit(add_one),  # hot after 100 calls: the compiled dispatcher
        "jitaic (Python dispatch)": python_dispatch,
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


def scalar_args(x, a, b, c, d, e, g, h):
    """A function of 7 Python floats and a small array (a scalar-heavy kernel)."""
    return (x * a + b) * c - d * np.exp(-e * g) + h


def per_call_scalar_arguments(repeats: int) -> dict[str, float]:
    """Microseconds per cached call of ``scalar_args`` (8 elements, 7 floats)."""
    args = (np.arange(8.0), 1.0, 2.0, 3.0, 4.0, 0.5, 0.25, 1.5)
    impls = {"numpy": scalar_args, "numba": numba.njit(scalar_args),
             "jitaic": jitaic.jit(scalar_args)}
    if jax is not None:
        def scalar_args_jax(x, a, b, c, d, e, g, h):
            return (x * a + b) * c - d * jnp.exp(-e * g) + h

        jitted, jx = jax.jit(scalar_args_jax), jnp.asarray(args[0])
        impls["jax"] = lambda _x, *floats: jitted(jx, *floats).block_until_ready()
    expected = scalar_args(*args)
    for fn in impls.values():
        np.testing.assert_allclose(fn(*args), expected, rtol=1e-14)
    timed = time_interleaved({k: (fn, args) for k, fn in impls.items()}, repeats,
                             min_batch_s=0.02)
    return {name: 1e6 * t for name, t in timed.items()}


def peak_memory(n: int = 10**7) -> dict[str, float]:
    """MB allocated at the peak of one call of the chain on n float64 elements,
    beyond its inputs (tracemalloc sees NumPy's and numba's allocations; XLA
    allocates outside it, so jax is not measured)."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, n))
    impls = {"numpy": chain_np, "numba": numba.njit(chain_loop), "jitaic": jitaic.jit(chain_np)}
    out = {}
    for name, fn in impls.items():
        fn(x, y)  # compile first
        tracemalloc.start()
        try:
            fn(x, y)
            out[name] = tracemalloc.get_traced_memory()[1] / 1e6
        finally:
            tracemalloc.stop()
    return out


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    opts = harness.parse_args(__doc__.splitlines()[0], argv)
    impls = ["numpy", "numba", "jitaic", *harness.optional_impls(), harness.SERIAL]
    harness.print_header("jitaic core benchmarks", opts)
    harness.warm_up()

    t_start = time.perf_counter()
    results = harness.run_workloads(workloads(opts.quick), impls, opts, run_workload)
    harness.print_cached_table(results)

    print("\n## First call of a fresh jit function (s: compile + one run)\n")
    print_table(
        ["workload", "size", "numba s", "jitaic s", "jax s", "torch.compile s"],
        [
            [w.name, w.size, fmt_s(c["numba"]), fmt_s(c["jitaic"]), fmt_s(c.get("jax"))]
            + [fmt_s(c.get(harness.TORCH))]
            for w, c in results
        ],
    )

    print("\n## Per-call overhead: cached `x + 1` on an 8-element array (µs per call)\n")
    over = per_call_overhead(opts.repeats)
    print_table(list(over), [[f"{v:.2f}" for v in over.values()]], text_columns=0)

    print("\n## Per-call cost with scalar arguments: `scalar_args`, an 8-element array "
          "and 7 Python floats (µs per call)\n")
    scalars = per_call_scalar_arguments(opts.repeats)
    print_table(list(scalars), [[f"{v:.2f}" for v in scalars.values()]], text_columns=0)

    print("\n## Peak memory of one call of the chain on 1e7 elements (MB; the result is 80)\n")
    peak = peak_memory()
    print_table(list(peak), [[f"{v:.1f}" for v in peak.values()]], text_columns=0)

    failures = harness.failures_of((f"{w.name} [{w.size}]", cells) for w, cells in results)
    label = f"{OVERHEAD.name} [{OVERHEAD.size}]"
    failures += [(impl, label, "failed") for impl, v in over.items() if math.isnan(v)]
    return harness.finish(failures, t_start)


if __name__ == "__main__":
    sys.exit(main())
