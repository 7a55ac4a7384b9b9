"""Control-flow benchmarks: NumPy vs a hand-written numba loop vs jitaic (vs jax.jit).

    python benchmarks/bench_control.py            # full run
    python benchmarks/bench_control.py --quick    # fewer repeats and a smaller stencil
    python benchmarks/bench_control.py --filter Newton

Workloads whose Python control flow jitaic must compile (the AST frontend of
the default ``mode="auto"``, or unrolling when tracing can decide it):

- Newton's iteration for sqrt over a vector, until ``max|step| <= tol``: a
  ``while`` whose test is a traced value;
- a Jacobi 2-D stencil, ``sweeps`` passes of slice assignment inside
  ``for _ in range(sweeps)`` with ``sweeps`` a Python int (static for jitaic:
  the loop is unrolled while tracing);
- a ``for i in range(x.shape[0])`` loop over rows with a scalar accumulator
  (``acc += np.sum(x[i] * w)``), and a running maximum kept with an ``if`` on
  a traced value;
- forward substitution ``x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]``: slices
  whose length is the loop index (run-time extents inside the loop body; the
  jax version masks the row instead, as lax has no run-time lengths);
- an escape-time loop over complex values (NPBench's mandelbrot1): masked
  updates ``z[m] = z[m] ** 2 + c[m]`` for a static number of steps (jitaic
  rewrites them to one fused ``where``; NumPy only computes the points still
  inside).

The "jitaic" column is ``jitaic.jit(fn)`` (default auto mode) on the SAME Python
source as the "numpy" column; the first-call table says which frontend auto
mode picked.  The "numba" column is a hand-written ``numba.njit`` loop with
default options; the "jax" column (only when ``import jax`` succeeds) uses
``lax.while_loop`` / ``lax.fori_loop``.  Conventions (checking against NumPy
before timing, medians of interleaved batches, BLAS pinned to one thread,
exit status 1 on any failure) are those of bench_core; see harness.py.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import harness  # first: pins BLAS to one thread before numpy loads it
import numpy as np
from harness import (
    Cell,
    fmt_s,
    jax,
    jax_impl,
    jitaic_impl,
    jnp,
    numba_impl,
    numpy_impl,
    print_table,
)

lax = jax.lax if jax is not None else None


# --------------------------------------------------------------------------
# (a) Newton's iteration for sqrt(a), while max|step| > tol
# --------------------------------------------------------------------------


def newton_np(a, tol):
    x = 0.5 * (a + 1.0)
    step = x
    while np.max(np.abs(step)) > tol:
        step = 0.5 * (x - a / x)
        x = x - step
    return x


def newton_loop(a, tol):
    # the same algorithm (every element steps until the largest step is small),
    # one fused pass per iteration
    n = a.shape[0]
    x = np.empty_like(a)
    err = 0.0
    for i in range(n):
        x[i] = 0.5 * (a[i] + 1.0)
        err = max(err, abs(x[i]))
    while err > tol:
        err = 0.0
        for i in range(n):
            step = 0.5 * (x[i] - a[i] / x[i])
            x[i] = x[i] - step
            err = max(err, abs(step))
    return x


def newton_jax(a, tol):
    def cond(carry):
        return jnp.max(jnp.abs(carry[1])) > tol

    def body(carry):
        x, _ = carry
        step = 0.5 * (x - a / x)
        return x - step, step

    x0 = 0.5 * (a + 1.0)
    return lax.while_loop(cond, body, (x0, x0))[0]


# --------------------------------------------------------------------------
# (b) Jacobi 2-D stencil: slice assignment inside a static for loop
# --------------------------------------------------------------------------


def jacobi_np(u0, sweeps):
    u = u0.copy()
    for _ in range(sweeps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def jacobi_loop(u0, sweeps):
    u = u0.copy()
    v = u0.copy()  # the boundary stays u0's in both buffers
    n, m = u.shape
    for _ in range(sweeps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
        u, v = v, u
    return u


def jacobi_jax(u0, sweeps):
    def body(_, u):
        return u.at[1:-1, 1:-1].set(
            0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        )

    return lax.fori_loop(0, sweeps, body, u0)


# --------------------------------------------------------------------------
# (c) a loop over rows with a scalar accumulator / a running max with an if
# --------------------------------------------------------------------------


def rowsum_np(x, w):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += np.sum(x[i] * w)
    return acc


def rowsum_loop(x, w):
    n, m = x.shape
    acc = 0.0
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += x[i, j] * w[j]
        acc += s
    return acc


def rowsum_jax(x, w):
    return lax.fori_loop(
        0, x.shape[0], lambda i, acc: acc + jnp.sum(x[i] * w), jnp.zeros((), x.dtype)
    )


def rowmax_np(x, w):
    best = -np.inf
    for i in range(x.shape[0]):
        s = np.sum(x[i] * w)
        if s > best:
            best = s
    return best


def rowmax_loop(x, w):
    n, m = x.shape
    best = -np.inf
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += x[i, j] * w[j]
        if s > best:
            best = s
    return best


def rowmax_jax(x, w):
    def body(i, best):
        s = jnp.sum(x[i] * w)
        return lax.cond(s > best, lambda: s, lambda: best)

    return lax.fori_loop(0, x.shape[0], body, jnp.full((), -jnp.inf, x.dtype))


# --------------------------------------------------------------------------
# (d) forward substitution: slices whose length is the loop index
# --------------------------------------------------------------------------


def trisolve_np(L, b):
    x = np.zeros_like(b)
    for i in range(b.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def trisolve_loop(L, b):
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n):
        s = 0.0
        for j in range(i):
            s += L[i, j] * x[j]
        x[i] = (b[i] - s) / L[i, i]
    return x


def trisolve_jax(L, b):
    # lax has no run-time slice lengths: mask the row instead (same O(n^2) work)
    cols = jnp.arange(b.shape[0])

    def body(i, x):
        row = jnp.where(cols < i, L[i], 0.0)
        return x.at[i].set((b[i] - row @ x) / L[i, i])

    return lax.fori_loop(0, b.shape[0], body, jnp.zeros_like(b))


# --------------------------------------------------------------------------
# (e) an escape-time loop: masked updates of complex values (NPBench's
#     mandelbrot1), maxiter a Python int
# --------------------------------------------------------------------------


def escape_np(c, maxiter):
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, np.int64)
    for it in range(maxiter):
        inside = np.abs(z) < 2.0
        counts[inside] = it
        z[inside] = z[inside] ** 2 + c[inside]
    return z, counts


def escape_loop(c, maxiter):
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, np.int64)
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            zij, cij = 0j, c[i, j]
            for it in range(maxiter):
                if abs(zij) < 2.0:
                    counts[i, j] = it
                    zij = zij * zij + cij
            z[i, j] = zij
    return z, counts


def escape_jax(c, maxiter):
    def body(it, carry):
        z, counts = carry
        inside = jnp.abs(z) < 2.0
        return jnp.where(inside, z * z + c, z), jnp.where(inside, it, counts)

    zeros = (jnp.zeros_like(c), jnp.zeros(c.shape, jnp.int64))
    return lax.fori_loop(0, maxiter, body, zeros)


# --------------------------------------------------------------------------
# workloads
# --------------------------------------------------------------------------


@dataclass
class Workload:
    name: str
    size: str
    make: Callable[[np.random.Generator, str], tuple]  # (rng, dtype) -> arguments
    numpy_fn: Callable
    loop_fn: Callable  # plain Python; compiled with a fresh numba.njit per row
    jax_fn: Callable
    jax_static: tuple[int, ...] = ()  # jax.jit static_argnums (jitaic: Python ints)
    rtol: float = 1e-10
    atol: float = 1e-12


NEWTON = "Newton sqrt, while max(abs(step)) > tol"
JACOBI = "Jacobi stencil, 10 sweeps"
ROWSUM = "rows: acc += sum(x[i]*w)"
ROWMAX = "rows: running max (if s > best)"
TRISOLVE = "forward substitution, L[i, :i] @ x[:i]"
ESCAPE = "escape time, z[m] = z[m]**2 + c[m], 100 steps"
# Newton's tolerance on its steps, by dtype: steps of float32 values up to 100
# stay above 1e-12 forever
TOL = {"float64": 1e-12, "float32": 1e-3}
SWEEPS = 10


def _positives(n: int):
    return lambda rng, dtype: (rng.uniform(1e-2, 1e4, n), TOL[dtype])


def _grid(n: int):
    def make(rng, dtype):
        u = np.zeros((n, n))
        u[0, :] = 1.0  # a hot edge, plus noise inside
        u[1:-1, 1:-1] = rng.standard_normal((n - 2, n - 2))
        return u, SWEEPS

    return make


def _rows(n: int, m: int):
    return lambda rng, dtype: (rng.standard_normal((n, m)), rng.standard_normal(m))


def _lower_triangular(n: int):
    def make(rng, dtype):
        return np.tril(rng.uniform(-1.0, 1.0, (n, n))) + n * np.eye(n), rng.standard_normal(n)

    return make


def _plane(n: int):
    def make(rng, dtype):
        x, y = np.linspace(-2.25, 0.75, n), np.linspace(-1.25, 1.25, n)
        return x + 1j * y[:, None], 100

    return make


def workloads(quick: bool) -> list[Workload]:
    """The full set, or with --quick a smaller stencil grid."""
    grid = 500 if quick else 1000
    ws = [
        Workload(NEWTON, label, _positives(n), newton_np, newton_loop, newton_jax)
        for n, label in [(10**3, "1e3"), (10**5, "1e5")]
    ]
    ws.append(
        Workload(
            JACOBI,
            f"{grid}x{grid}",
            _grid(grid),
            jacobi_np,
            jacobi_loop,
            jacobi_jax,
            jax_static=(1,),
        )
    )
    # np.sum's pairwise order vs the loops' sequential order: rtol 1e-9
    for name, np_fn, loop_fn, jax_fn in [
        (ROWSUM, rowsum_np, rowsum_loop, rowsum_jax),
        (ROWMAX, rowmax_np, rowmax_loop, rowmax_jax),
    ]:
        ws += [
            Workload(name, label, _rows(n, m), np_fn, loop_fn, jax_fn, rtol=1e-9, atol=1e-10)
            for n, m, label in [(10**4, 16, "1e4x16"), (10**3, 256, "1e3x256")]
        ]
    ws += [Workload(TRISOLVE, str(n), _lower_triangular(n), trisolve_np, trisolve_loop,
                    trisolve_jax, rtol=1e-9, atol=1e-12) for n in (100, 1000)]
    # NumPy's complex products fuse a multiply and an add where the CPU has FMA
    # (docs/differences.md): 100 chaotic steps grow that last bit to ~1e-8
    # near the set's boundary (the escape counts agree exactly)
    ws.append(Workload(ESCAPE, "200x200", _plane(200), escape_np, escape_loop, escape_jax,
                       jax_static=(1,), rtol=1e-6, atol=1e-9))
    return ws


def run_workload(w: Workload, impls: list[str], rng, opts) -> dict[str, Cell]:
    args = harness.as_dtype(w.make(rng, opts.dtype), opts.dtype)
    expected = w.numpy_fn(*args)
    builders = {
        "numpy": numpy_impl(w.numpy_fn),
        "numba": numba_impl(w.loop_fn),
        "jitaic": jitaic_impl(w.numpy_fn),  # default mode="auto", the NumPy source
        "jax": jax_impl(w.jax_fn, static_argnums=w.jax_static),
        harness.TORCH: harness.torch_impl(w.numpy_fn),
    }
    builders = {impl: builders[impl] for impl in impls}
    rtol, atol = harness.tolerances(w.rtol, w.atol, opts.dtype)
    return harness.run_impls(builders, args, expected, opts, rtol=rtol, atol=atol)


def frontend(c: Cell | None) -> str:
    """Which frontend jitaic's auto mode used ("trace" or "ast")."""
    if c is None or c.error is not None or c.fn is None:
        return "-"
    specs = c.fn.specializations()
    return specs[0].frontend if specs else "-"


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    opts = harness.parse_args(__doc__.splitlines()[0], argv)
    impls = ["numpy", "numba", "jitaic", *harness.optional_impls(torch=opts.torch)]
    harness.print_header("jitaic control-flow benchmarks", opts)
    harness.warm_up()

    t_start = time.perf_counter()
    results = harness.run_workloads(workloads(opts.quick), impls, opts, run_workload)
    harness.print_cached_table(results)

    print("\n## First call of a fresh jit function (s: compile + one run)\n")
    print_table(
        ["workload", "size", "numba s", "jitaic s", "jax s", "torch.compile s",
         "jitaic frontend"],
        [
            [w.name, w.size, fmt_s(c["numba"]), fmt_s(c["jitaic"]), fmt_s(c.get("jax"))]
            + [fmt_s(c.get(harness.TORCH)), frontend(c["jitaic"])]
            for w, c in results
        ],
    )

    failures = harness.failures_of((f"{w.name} [{w.size}]", cells) for w, cells in results)
    return harness.finish(failures, t_start)


if __name__ == "__main__":
    sys.exit(main())
