"""Gradients of loop code: time of jit(grad(loss)) over jit(loss), per program.

    python benchmarks/bench_loop_gradients.py            # full run
    python benchmarks/bench_loop_gradients.py --quick    # fewer repeats
    python benchmarks/bench_loop_gradients.py --filter Cholesky

Each program is plain NumPy loop code of the kind issue #19 names (stencil
sweeps and time loops with in-place slice updates, line solves, a
factorisation, a recursion, a matrix-product chain, an n-body step),
wrapped as ``loss(*args) = sum(sin(out) * out)`` on copies of its array
arguments, and differentiated unmodified with respect to its float arrays.
Columns: the cached forward ``jitaic.jit(loss)`` and gradient
``jitaic.jit(jitaic.grad(loss, argnums))`` (medians of interleaved batches),
their ratio (reverse mode's target: at most 3), the peak memory one call
allocates beyond its inputs (tracemalloc: NumPy's and numba's allocations),
and the first call of each (trace and compile, disk cache off). Every
gradient is checked against central differences of the NumPy loss along
three random directions before it is timed.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

import harness  # first: pins BLAS to one thread before numpy loads it
import numpy as np
from harness import Cell, fmt_ms, fmt_s, jitaic_impl, print_table, ratio

import jitaic

# --------------------------------------------------------------------------
# the programs (NumPy as a user writes it)
# --------------------------------------------------------------------------


def jacobi_2d(A, B, steps):
    for _ in range(steps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1]
                               + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1]
                               + B[:-2, 1:-1])
    return A


def thomas_rows(a, b, c, d):
    """One tridiagonal system per row, solved along the row (an ADI half-step)."""
    n = d.shape[1]
    cp = np.zeros_like(d)
    dp = np.zeros_like(d)
    cp[:, 0] = c[:, 0] / b[:, 0]
    dp[:, 0] = d[:, 0] / b[:, 0]
    for j in range(1, n):
        m = b[:, j] - a[:, j] * cp[:, j - 1]
        cp[:, j] = c[:, j] / m
        dp[:, j] = (d[:, j] - a[:, j] * dp[:, j - 1]) / m
    x = np.zeros_like(d)
    x[:, n - 1] = dp[:, n - 1]
    for j in range(n - 2, -1, -1):
        x[:, j] = dp[:, j] - cp[:, j] * x[:, j + 1]
    return x


def cholesky(A):
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])
    return A


def trisolv(L, b):
    x = np.zeros_like(b)
    for i in range(b.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def durbin(r):
    """Levinson-Durbin recursion (Yule-Walker equations)."""
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y


def chain(A, B, C, D):
    return A @ B @ C @ D


def heat(u, steps):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


def nbody(pos, vel, mass, steps):
    for _ in range(steps):
        d = pos[None, :, :] - pos[:, None, :]
        inv = ((d ** 2).sum(axis=2) + 0.01) ** -1.5
        acc = (d * (mass[None, :, None] * inv[:, :, None])).sum(axis=1)
        vel = vel + 0.01 * acc
        pos = pos + 0.01 * vel
    return pos


@dataclass
class Program:
    name: str
    size: str
    fn: Callable
    make: Callable[[np.random.Generator], tuple]
    argnums: tuple[int, ...]


def _spd(rng: np.random.Generator, n: int) -> np.ndarray:
    m = rng.random((n, n))
    return m @ m.T + n * np.eye(n)


N = 120
PROGRAMS = [
    Program("Jacobi 2-D, 20 sweeps", f"{N}x{N}", jacobi_2d,
            lambda rng: (rng.random((N, N)), rng.random((N, N)), 20), (0,)),
    Program("heat 1-D, 200 explicit steps", "2000", heat,
            lambda rng: (rng.random(2000), 200), (0,)),
    Program("ADI-style line solve (Thomas per row)", f"64x{N}", thomas_rows,
            lambda rng: (rng.random((64, N)) * 0.1, 2 + rng.random((64, N)),
                         rng.random((64, N)) * 0.1, rng.random((64, N))), (0, 1, 2, 3)),
    Program("triangular solve", "100", trisolv,
            lambda rng: (np.tril(rng.random((100, 100))) + 100 * np.eye(100),
                         rng.random(100)), (0, 1)),
    Program("Cholesky", "40", cholesky, lambda rng: (_spd(rng, 40),), (0,)),
    Program("Cholesky", "100", cholesky, lambda rng: (_spd(rng, 100),), (0,)),
    Program("Levinson-Durbin recursion", f"{N}", durbin,
            lambda rng: (0.5 * rng.random(N) / N,), (0,)),
    Program("matmul chain A@B@C@D", f"{N}x{N}", chain,
            lambda rng: tuple(rng.random((N, N)) / N for _ in range(4)), (0, 1, 2, 3)),
    Program("n-body, 10 steps", "64", nbody,
            lambda rng: (rng.random((64, 3)), rng.random((64, 3)) * 0.1,
                         rng.random(64) + 1, 10), (0, 1, 2)),
]


def make_loss(fn: Callable) -> Callable:
    def loss(*args):
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        out = fn(*args)
        return (np.sin(out) * out).sum()

    loss.__name__ = f"{fn.__name__}_loss"
    return loss


# --------------------------------------------------------------------------
# measuring
# --------------------------------------------------------------------------


def directional_error(loss: Callable, grads: tuple, args: tuple, argnums: tuple,
                      rng: np.random.Generator, h: float = 1e-6) -> float:
    """The largest relative error of <grad, d> against central differences
    of the NumPy loss along three random directions d."""
    worst = 0.0
    for _ in range(3):
        ds = [rng.normal(size=args[i].shape) for i in argnums]
        plus, minus = list(args), list(args)
        for i, d in zip(argnums, ds):
            plus[i], minus[i] = args[i] + h * d, args[i] - h * d
        fd = (loss(*plus) - loss(*minus)) / (2 * h)
        exact = sum(float((g * d).sum()) for g, d in zip(grads, ds))
        worst = max(worst, abs(fd - exact) / max(abs(fd), 1e-12))
    return worst


def peak_mb(fn: Callable, args: tuple) -> float:
    """MB allocated at the peak of one call (inputs excluded)."""
    fn(*args)
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def prepare_gradient(loss: Callable, p: Program, args: tuple,
                     rng: np.random.Generator) -> tuple[Cell, Callable | None]:
    """A fresh jit(grad(loss)): its first call timed, its result checked."""
    cell, fn = Cell(), None
    try:
        fn = jitaic.jit(jitaic.grad(loss, argnums=p.argnums))
        cell.fn = fn
        cell.first_s, grads = harness.first_call(fn, args)
        error = directional_error(loss, grads, args, p.argnums, rng)
        if error > 1e-5:
            raise AssertionError(f"gradient off by {error:.1e} (central differences)")
    except Exception as exc:  # reported in the table and the summary
        cell.error = harness.error_text(exc)
    return cell, fn


def run_program(p: Program, rng: np.random.Generator, opts) -> dict[str, Cell]:
    args = p.make(rng)
    loss = make_loss(p.fn)
    with jitaic.config.override(cache_dir="off"):  # first calls compile
        fwd_cell, fwd, _ = harness.prepare(jitaic_impl(loss), args, loss(*args), 1e-10, 1e-12)
        grad_cell, grad = prepare_gradient(loss, p, args, rng)
    cells = {"forward": fwd_cell, "gradient": grad_cell}
    ready = {k: (c.fn, args) for k, c in cells.items() if c.error is None}
    for k, t in harness.time_interleaved(ready, opts.repeats, opts.min_batch_s).items():
        cells[k].run_ms = 1e3 * t
    peaks = {k: peak_mb(c.fn, args) for k, c in cells.items() if c.error is None}
    harness.progress(p.name, p.size, cells)
    return cells, peaks


def main(argv: list[str] | None = None) -> int:
    opts = harness.parse_args(__doc__.splitlines()[0], argv)
    harness.print_header("jitaic gradients of loop code", opts)
    harness.warm_up(matmul=True)
    rng = np.random.default_rng(0)
    t_start = time.perf_counter()
    results = [(p, *run_program(p, rng, opts)) for p in PROGRAMS if opts.selected(p.name)]
    print("## Gradient over forward (cached calls; target <= 3)\n")
    print("forward: jitaic.jit(loss); gradient: jitaic.jit(jitaic.grad(loss, argnums)); "
          "peak: MB one call allocates; first: trace and compile, disk cache off.\n")
    print_table(
        ["program", "size", "forward ms", "gradient ms", "gradient/forward",
         "forward peak MB", "gradient peak MB", "forward first s", "gradient first s"],
        [[p.name, p.size, fmt_ms(c["forward"]), fmt_ms(c["gradient"]),
          ratio(c["gradient"], c["forward"]),
          *(f"{peaks[k]:.1f}" if k in peaks else "-" for k in ("forward", "gradient")),
          fmt_s(c["forward"]), fmt_s(c["gradient"])]
         for p, c, peaks in results])
    labelled = [(f"{p.name} [{p.size}]", c) for p, c, _ in results]
    return harness.finish(harness.failures_of(labelled), t_start)


if __name__ == "__main__":
    sys.exit(main())
