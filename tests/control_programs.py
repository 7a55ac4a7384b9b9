"""User-style programs with Python control flow, for the AST frontend.

Each program is plain NumPy code as a user would write it: ``if``/``elif``/
``else`` on array values, ``while`` loops to a tolerance, ``for i in
range(...)`` loops that index arrays with the loop index and write arrays in
place, early returns, conditional expressions, ``and``/``or``/``not``, and
helpers that branch. ``test_ast_frontend.py`` runs each through
``jitaic.jit`` in modes "auto" and "ast" and compares return values and
mutated arguments with the plain function run on copies.

``datasets`` make the arguments. They come in (at least) two shapes, so there
are two specialisations per mode, and several data sets share a shape where
that is what it takes to send every branch through the compiled code (data
sets of one shape share one compile). ``test_datasets_cover_every_line``
checks that together they execute every line of every program.

``data_dependent`` says whether control flow needs a traced value (so the
default mode="auto" must fall back to the AST frontend) or is static (a loop
over ``range`` of a Python int, an ``if`` on a shape: auto mode traces it).
``ir_ops`` are the structured ops the mode="ast" IR must contain; ``loops``
how many ``for``/``while`` statements it has, each of which must appear in
the IR exactly once (a loop that is not unrolled), except ``python_loops``
loops over Python containers, which run while tracing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Program:
    name: str
    fn: Callable
    datasets: tuple[Callable[[np.random.Generator], tuple], ...]
    data_dependent: bool
    ir_ops: frozenset[str]
    helpers: tuple[Callable, ...] = ()
    python_loops: int = 0  # loops over Python containers: run while tracing


PROGRAMS: list[Program] = []
CONTROL_OPS = ("cond", "while_loop", "for_loop")


def program(*datasets, data_dependent: bool, ir: tuple[str, ...] = (), helpers=(),
            python_loops: int = 0):
    """Register ``fn`` with its argument makers (see the module docstring)."""
    assert set(ir) <= set(CONTROL_OPS), ir

    def register(fn: Callable) -> Callable:
        PROGRAMS.append(Program(fn.__name__, fn, datasets, data_dependent, frozenset(ir),
                                tuple(helpers), python_loops))
        return fn

    return register


def normal(r: np.random.Generator, *shape: int, dtype=np.float64) -> np.ndarray:
    return r.normal(size=shape).astype(dtype)


def spd(r: np.random.Generator, n: int) -> np.ndarray:
    """A symmetric positive definite matrix with a clear dominant eigenvalue."""
    q, _ = np.linalg.qr(r.normal(size=(n, n)))
    eig = np.linspace(1.0, 2.0, n)
    eig[-1] = 6.0
    return (q * eig) @ q.T


# ---------------------------------------------------------------- if / elif / else


@program(lambda r: (np.abs(normal(r, 5)) + 0.1,), lambda r: (-np.abs(normal(r, 5)) - 0.1,),
         lambda r: (np.abs(normal(r, 3, 4, dtype=np.float32)),),
         lambda r: (-np.abs(normal(r, 3, 4, dtype=np.float32)),),
         data_dependent=True, ir=("cond",))
def sign_branch(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = -x + 1
    return y


@program(lambda r: (normal(r, 6) * 0.1, 1.0), lambda r: (normal(r, 6) + 1.5, 1.0),
         lambda r: (normal(r, 6) + 9.0, 1.0), lambda r: (normal(r, 2, 3) * 0.1, 0.5),
         lambda r: (np.full((2, 3), 5.0), 0.5),
         data_dependent=True, ir=("cond",))
def elif_chain(x, thresh):
    # thresh is a Python float: traced, so one compile serves every threshold.
    m = x.max()
    if m < thresh:
        out = x
        label = 0
    elif m < 2 * thresh + 1:
        out = x / m
        label = 1
    else:
        out = np.clip(x, -thresh, thresh)
        label = 2
    return out, label


@program(lambda r: (np.abs(normal(r, 4)) + 1.0,), lambda r: (-np.abs(normal(r, 4)),),
         lambda r: (np.abs(normal(r, 2, 3, dtype=np.float32)),),
         data_dependent=True)
def branch_then_augmented(x):
    # after the if, y is only read by `+=` (a store to the name, and a read);
    # dead code, which must still run: the cond is removed from the graph
    if x.sum() > 2.0:
        y = np.sin(x)
    else:
        y = x + 2.0
    y += x
    return x


@program(lambda r: (np.array([0.5, 1.0, 3.0]),), lambda r: (np.array([0.5, 1.0, 1.5]),),
         lambda r: (np.array([-0.5, -1.0, -3.0]),), lambda r: (np.array([-0.5, -1.0, 1.0]),),
         lambda r: (-np.ones((2, 2)),),
         data_dependent=True, ir=("cond",))
def nested_if(x):
    total = x.sum()
    if x.mean() > 0:
        if x.max() > 2:
            total = total - x.max()
            scale = 0.5
        else:
            scale = 2.0
    else:
        if x.min() < -2:
            scale = -1.0
        else:
            scale = 3.0
            total = total + 1
    return x * scale + total


@program(lambda r: (np.array([1.0, 2.0, 3.0]), 0.0, 5.0),
         lambda r: (np.array([1.0, 20.0, 3.0]), 0.0, 5.0),
         lambda r: (np.array([-1.0, 2.0, 3.0]), 0.0, 5.0),
         lambda r: (np.zeros((2, 3)), 1.0, 5.0),
         lambda r: (np.full((2, 3), 3.0), 1.0, 5.0),
         data_dependent=True, ir=("cond",))
def bool_ops(x, lo, hi):
    inside = x.min() >= lo and x.max() <= hi
    if inside or x.mean() == 0:
        return x
    if not (x.min() >= lo):
        return x - x.min() + lo
    return np.clip(x, lo, hi)


@program(lambda r: (np.array([2.0, -1.0, 4.0]),), lambda r: (np.array([-2.0, 1.0, 4.0]),),
         lambda r: (normal(r, 5) + 5,), lambda r: (-normal(r, 5) ** 2,),
         lambda r: (np.array([-1.0, 3.0, 3.0, 3.0, 3.0]),),
         data_dependent=True, ir=("cond",))
def early_return(x):
    if x[0] > 0:
        return x * 2
    y = x - 1
    if y.sum() > 3:
        y = y * 0.5
    return y


@program(lambda r: (normal(r, 4) + 5, np.ones(4)), lambda r: (normal(r, 4) - 5, np.ones(4)),
         lambda r: (normal(r, 2, 3) + 5, np.arange(6.0).reshape(2, 3)),
         lambda r: (normal(r, 2, 3) - 5, np.arange(6.0).reshape(2, 3)),
         data_dependent=True, ir=("cond",))
def conditional_expression(a, b):
    s = a.sum()
    y = a if s > 0 else b
    sign = 1.0 if s > 0 else -1.0
    return y * sign + (b.max() if s < 0 else b.min())


def clip_norm(v, limit):
    """A helper that branches on a traced value (not jitted itself)."""
    norm = np.sqrt((v * v).sum())
    if norm > limit:
        v = v * (limit / norm)
    return v


@program(lambda r: (normal(r, 5) * 0.01, normal(r, 5) * 0.01),
         lambda r: (normal(r, 5) * 10, normal(r, 5) * 10),
         lambda r: (normal(r, 2, 4) * 10, normal(r, 2, 4) * 0.01),
         data_dependent=True, ir=("cond",), helpers=(clip_norm,))
def helper_with_if(x, g):
    return clip_norm(x, 1.0) + clip_norm(g, 0.5) * 2


@program(lambda r: (normal(r, 6, 2),), lambda r: (normal(r, 2, 3, 2),),
         lambda r: (normal(r, 1, 3),),
         data_dependent=False, ir=())
def static_shape_if(x):
    if x.shape[0] > 3:
        y = x[:3].sum(axis=0)
    elif x.ndim == 3:
        y = x.mean(axis=(0, 1))
    else:
        y = x.sum(axis=0) * 2
    return y


@program(lambda r: (np.abs(normal(r, 5, dtype=np.float32)) + 2,),
         lambda r: (np.abs(normal(r, 5, dtype=np.float32)) * 0.1,),
         lambda r: (-np.abs(normal(r, 2, 3, dtype=np.float32)) - 1,),
         lambda r: (np.abs(normal(r, 2, 3, dtype=np.float32)) + 2,),
         data_dependent=True, ir=("cond",))
def branch_writes_argument(x):
    # Writes into the argument inside a branch: the caller sees them.
    if x.mean() < 0:
        x[0] = 0
        x[-1] += 1
    else:
        x[...] = x / x.max()
    return x.sum()


# ---------------------------------------------------------------- while loops


@program(lambda r: (np.abs(normal(r, 6)) * 10 + 0.5, 1e-10, 50),
         lambda r: (np.abs(normal(r, 6)) * 10 + 0.5, 1e-10, 2),
         lambda r: (np.abs(normal(r, 3, 3)) * 100 + 1, 1e-8, 100),
         lambda r: (np.abs(normal(r, 3, 3)) * 100 + 1, 1e-8, 3),
         data_dependent=True, ir=("while_loop",))
def newton_sqrt(a, tol, maxit):
    # tol is a traced float; maxit a static int; `it` a Python int that the
    # loop carries as a traced integer.
    y = a / 2 + 0.5
    it = 0
    err = np.abs(y * y - a).max()
    while err > tol and it < maxit:
        y = 0.5 * (y + a / y)
        err = np.abs(y * y - a).max()
        it += 1
    return y, it, err


@program(lambda r: (spd(r, 5), 1e-9, 500), lambda r: (spd(r, 5), 1e-9, 4),
         lambda r: (spd(r, 8), 1e-12, 1000),
         data_dependent=True, ir=("while_loop",))
def power_iteration(A, tol, maxit):
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    lam = 0.0
    delta = 1.0
    k = 0
    while delta > tol and k < maxit:
        w = A @ v
        new = v @ w
        v = w / np.sqrt(w @ w)
        delta = np.abs(new - lam)
        lam = new
        k += 1
    return lam, v, k


@program(lambda r: (normal(r, 5) * 40, 1.0), lambda r: (normal(r, 5) * 0.1, 1.0),
         lambda r: (normal(r, 3, 2) * 1000, 0.5),
         data_dependent=True, ir=("while_loop",))
def mixed_while(x, thresh):
    # Python int and float state next to array state.
    n = 0
    total = 0.0
    y = x
    while np.abs(y).max() > thresh:
        y = y / 2
        n += 1
        total = total + np.abs(y).sum()
    return y, n, total


@program(lambda r: (np.abs(normal(r, 7)) + 0.1, 3.0, 1e-9),
         lambda r: (np.abs(normal(r, 7)) + 0.1, 0.05, 1e-9),
         lambda r: (np.abs(normal(r, 3, 4)) + 0.1, 2.0, 1e-6),
         data_dependent=True, ir=("while_loop", "cond"))
def bisection(x, target, tol):
    # Solve sum(exp(-t * x)) == target for t in [0, 50]: an if inside a while.
    lo, hi = 0.0, 50.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if np.exp(-mid * x).sum() > target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def grid(r: np.random.Generator, n: int, scale: float) -> np.ndarray:
    """Points of the complex plane (a Mandelbrot set's parameters)."""
    return scale * (r.uniform(-1.5, 0.5, n) + 1j * r.uniform(-1.0, 1.0, n))


@program(lambda r: (grid(r, 6, 1.0), 30), lambda r: (grid(r, 9, 0.2), 30),
         data_dependent=True, ir=("while_loop",))
def escape_time(c, limit):
    """Iterate z -> z * z + c until a point escapes (or ``limit`` steps)."""
    z = np.zeros_like(c)
    n = 0
    while np.abs(z).max() <= 2.0 and n < limit:
        z = z * z + c
        n += 1
    return n, z


@program(lambda r: (grid(r, 8, 1.0), 12), lambda r: (grid(r, 5, 1.2), 12),
         data_dependent=False, ir=("for_loop",))
def mandelbrot_counts(c, iterations):
    """Escape counts of every point, updating only those still inside."""
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, np.int64)
    for _ in range(iterations):
        inside = np.abs(z) <= 2.0
        z[inside] = z[inside] ** 2 + c[inside]
        counts[inside] += 1
    return counts, z.real


# ---------------------------------------------------------------- for loops


@program(lambda r: (normal(r, 100, 3),), lambda r: (normal(r, 7, 4, dtype=np.float32),),
         data_dependent=False, ir=("for_loop",))
def row_accumulate(x):
    # acc starts as a Python int; the loop carries it as a float.
    acc = 0
    for i in range(x.shape[0]):
        acc += x[i].sum()
    return acc


@program(lambda r: (normal(r, 8, 3), 1.0), lambda r: (normal(r, 8, 3) * 0.1, 1.0),
         lambda r: (normal(r, 5, 2, 2), 0.0),
         data_dependent=True, ir=("for_loop", "cond"))
def if_in_for(x, limit):
    acc = np.zeros(x.shape[1:])
    count = 0
    for i in range(x.shape[0]):
        row = x[i]
        if np.abs(row).max() > limit:
            acc = acc - row
            count += 1
        else:
            acc = acc + row * 2
    return acc, count


@program(lambda r: (np.zeros((10, 12)), normal(r, 10, 12), 25),
         lambda r: (normal(r, 6, 5), normal(r, 6, 5), 3),
         data_dependent=False, ir=("for_loop",))
def jacobi(u, f, sweeps):
    # Slice assignment into the argument: the caller's u is updated in place.
    h2 = 1.0 / (u.shape[0] - 1) ** 2
    for _sweep in range(sweeps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                                - h2 * f[1:-1, 1:-1])
    return np.abs(u).max()


@program(lambda r: (np.sin(np.linspace(0, np.pi, 20)), 0.25, 30),
         lambda r: (normal(r, 9, dtype=np.float32), 0.1, 4),
         data_dependent=False, ir=("for_loop",))
def heat_1d(u, alpha, steps):
    for _step in range(steps):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


@program(lambda r: (normal(r, 9),), lambda r: (r.integers(-5, 5, size=(6, 3)),),
         data_dependent=False, ir=("for_loop",))
def cumsum_inplace(x):
    for i in range(1, x.shape[0]):
        x[i] += x[i - 1]
    return x


@program(lambda r: (normal(r, 6, 4),), lambda r: (normal(r, 3, 5, dtype=np.float32),),
         data_dependent=False, ir=("for_loop",))
def rows_of_output(x):
    out = np.zeros((x.shape[0], 2), dtype=x.dtype)
    for i in range(x.shape[0]):
        out[i] = np.array([np.tanh(x[i]).sum(), x[i, 1:3].max() * (i + 1)])
    return out


@program(lambda r: (normal(r, 5, 3), normal(r, 4, 3)), lambda r: (normal(r, 3, 2), normal(r, 6, 2)),
         data_dependent=False, ir=("for_loop",))
def pairwise_distances(x, y):
    D = np.zeros((x.shape[0], y.shape[0]))
    for i in range(x.shape[0]):
        for j in range(y.shape[0]):
            d = x[i] - y[j]
            D[i, j] = np.sqrt((d * d).sum())
    return D


@program(lambda r: (np.array([1.0, 3.0, 2.0, 7.0, 5.0]),),
         lambda r: (np.array([9.0, 3.0, 2.0, 7.0, 5.0]),),
         lambda r: (normal(r, 12),),
         data_dependent=True, ir=("for_loop", "cond"))
def running_argmax(x):
    best = x[0]
    idx = 0
    for i in range(1, x.shape[0]):
        if x[i] > best:
            best = x[i]
            idx = i
    return best, idx


@program(lambda r: (normal(r, 20, 3), normal(r, 20), 0.1, 30),
         lambda r: (normal(r, 20, 3) * 100, normal(r, 20) * 100, 0.1, 30),
         lambda r: (normal(r, 9, 2), normal(r, 9), 0.5, 5),
         data_dependent=True, ir=("for_loop", "cond"))
def clipped_gradient_descent(X, y, lr, steps):
    w = np.zeros(X.shape[1])
    for _step in range(steps):
        g = X.T @ (X @ w - y) / X.shape[0]
        gn = np.sqrt(g @ g)
        if gn > 1.0:
            g = g / gn
        w = w - lr * g
    return w


@program(lambda r: (np.array([[1.0, -3.0], [-6.0, 10.0], [-1.0, -1.0]]),),
         lambda r: (normal(r, 5, 4),), lambda r: (np.abs(normal(r, 5, 4)),),
         data_dependent=True, ir=("for_loop", "cond"))
def flip_negative_rows(x):
    # A traced loop index inside a traced branch writing the argument in place.
    flipped = 0
    for i in range(x.shape[0]):
        if x[i].sum() < 0:
            x[i] *= -1
            flipped += 1
    return flipped


# ---------------------------------------------------------------- loop exits


@program(lambda r: (np.array([1.0, 2.0, -3.0, 4.0]),), lambda r: (np.array([1.0, 2.0, 3.0, 4.0]),),
         lambda r: (np.abs(normal(r, 6)) + 0.1,), lambda r: (np.array([-1.0, 2.0, 3.0]),),
         data_dependent=True, ir=("for_loop", "cond"))
def first_negative(x):
    # return inside a for loop: the index of the first negative entry
    for i in range(x.shape[0]):
        if x[i] < 0:
            return i
    return -1


@program(lambda r: (np.array([1.0, -2.0, 3.0, 4.0, 5.0]), 5.0),
         lambda r: (np.array([1.0, -2.0, 0.5, 0.25, -5.0]), 5.0),
         lambda r: (normal(r, 9), 1.5),
         data_dependent=True, ir=("for_loop", "cond"))
def positive_prefix_sum(x, cap):
    # continue skips negatives, break stops once the sum passes the cap
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        s += x[i]
        if s > cap:
            break
    return s


@program(lambda r: (np.array([3.0, 4.0]),), lambda r: (normal(r, 5) * 10,),
         lambda r: (np.array([0.01, 0.02]),),
         data_dependent=True, ir=("while_loop", "cond"))
def halve_until_small(x):
    # while True with a break at the end of the body
    y = x.copy()
    k = 0
    while True:
        y = y * 0.5
        k += 1
        if np.abs(y).max() < 0.1:
            break
    return y, k


@program(lambda r: (np.arange(9.0).reshape(3, 3) * 0.4, 2.0),
         lambda r: (np.zeros((3, 3)), 2.0),
         lambda r: (normal(r, 4, 4), 1.0),
         data_dependent=True, ir=("for_loop", "cond"))
def first_above_nested(a, limit):
    # return from inside two nested loops
    n, m = a.shape
    for i in range(n):
        for j in range(m):
            if a[i, j] > limit:
                return a[i, j] * 10 + i + j
    return 0.0


@program(lambda r: (np.arange(4.0), 100.0), lambda r: (np.arange(4.0), 2.0),
         lambda r: (normal(r, 3, 2), 0.5),
         data_dependent=True, ir=("for_loop", "cond"))
def for_else(x, limit):
    # the else clause runs when no break happened
    for i in range(x.shape[0]):
        if x[i].max() > limit:
            x[i] = limit
            break
    else:
        x = x * 2
    return x


@program(lambda r: (np.array([5.0, 1.0, 2.0]), 1e-3),
         lambda r: (np.array([0.5, 0.25]), 1e-3),
         lambda r: (np.abs(normal(r, 4)) + 1.0, 1e-6),
         lambda r: (np.array([0.0, 1.0]), 1e-3),  # 0/0: diverges, breaks out
         data_dependent=True, ir=("while_loop", "cond"))
def newton_with_early_exit(a, tol):
    # a convergence loop that returns from inside, plus a guard against divergence
    y = a.copy()
    it = 0
    while it < 100:
        it += 1
        step = (y * y - a) / (2 * y)
        y = y - step
        if np.abs(step).max() < tol:
            return y, it
        if not np.all(np.isfinite(y)):
            break
    return y, -it


# ---------------------------------------------------------------- for over arrays


@program(lambda r: (normal(r, 7, 3), normal(r, 3)), lambda r: (normal(r, 4, 5), normal(r, 5)),
         data_dependent=False, ir=("for_loop",))
def dot_rows(x, w):
    # for row in array: a for_loop over the index, not unrolled (in mode="ast")
    out = np.zeros(x.shape[0])
    acc = 0.0
    for k, row in enumerate(x):
        out[k] = row @ w
        acc += row.sum()
    return out, acc


@program(lambda r: (normal(r, 6, 2), normal(r, 6, 2), 0.5),
         lambda r: (normal(r, 3, 4), normal(r, 3, 4), -10.0),
         lambda r: (normal(r, 3, 4), normal(r, 3, 4), 10.0),
         data_dependent=True, ir=("for_loop", "cond"))
def zip_threshold(a, b, t):
    # zip of two arrays and of a range, with a branch on the items
    total = np.zeros(a.shape[1])
    for i, (u, v) in zip(range(1, 100, 2), zip(a, b)):
        if u.sum() > t:
            total += u * i
        else:
            total -= v
    return total


@program(lambda r: (normal(r, 5), [1.0, 2.0, 0.5]), lambda r: (normal(r, 2, 3), [3.0]),
         data_dependent=False, python_loops=1)
def python_list_loop(x, scales):
    # a Python list of floats is iterated while tracing (no loop in the IR)
    out = x
    for s in scales:
        out = out * s + 1.0
    return out


@program(lambda r: (np.array([0.5, 3.0, 1.0, 9.0]), 4.0), lambda r: (normal(r, 6), 0.1),
         data_dependent=True, ir=("for_loop",))
def clamped_running_max(x, cap):
    # builtin max/min of traced scalars (Python would need their values)
    best = 0.0
    for i in range(x.shape[0]):
        best = min(max(best, x[i], 0.25), cap)
    return best


# ------------------------------------------------ windows: traced start, fixed length


@program(lambda r: (normal(r, 12),), lambda r: (normal(r, 5),), data_dependent=False,
         ir=("for_loop",))
def moving_window(x):
    # x[j:j + 3]: the start is the loop index, the length is static (no unrolling)
    out = np.zeros(x.shape[0] - 2)
    for j in range(x.shape[0] - 2):
        out[j] = x[j:j + 3].sum() / 3.0 + x[j + 1 - 1:j + 2].max()
    return out


@program(lambda r: (normal(r, 7, 9),), lambda r: (normal(r, 3, 3),), data_dependent=False,
         ir=("for_loop",))
def banded_update(a):
    # slice assignment to a window that moves with i, on the argument itself
    for i in range(1, a.shape[0] - 1):
        a[i, i - 1:i + 2] += a[i - 1, i - 1:i + 2] * 0.5
    return a


# ------------------------------------- slices whose length is known at run time only
# x[:i], A[i, :j], y[k:n - k]: the loop stays one loop (not unrolled), the slice
# is a run-time view; sums, dots, max, mean and slice assignment work on it.


@program(lambda r: (np.tril(spd(r, 6)) + 6 * np.eye(6), normal(r, 6)),
         lambda r: (np.tril(spd(r, 3)) + 3 * np.eye(3), normal(r, 3)),
         data_dependent=False, ir=("for_loop",))
def forward_substitution(L, b):
    x = np.zeros_like(b)
    for i in range(b.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


@program(lambda r: (spd(r, 7),), lambda r: (spd(r, 4).astype(np.float32),),
         data_dependent=False, ir=("for_loop",))
def cholesky_in_place(A):
    # the textbook loops: dot products of row prefixes whose length is j or i
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])
    return A


@program(lambda r: (normal(r, 9),), lambda r: (normal(r, 4, dtype=np.float32),),
         data_dependent=False, ir=("for_loop",))
def prefix_statistics(x):
    # reductions over x[:i + 1], x[i:] and x[-i - 1:] (negative bounds count from the end)
    out = np.zeros((x.shape[0], 4), x.dtype)
    for i in range(x.shape[0]):
        head = x[:i + 1]
        out[i, 0] = head.mean()
        out[i, 1] = head.var()
        out[i, 2] = x[i:].max() - x[-i - 1:].min()
        out[i, 3] = np.sum(x[::-1][:i + 1] * 2.0)
    return out


@program(lambda r: (np.linspace(0.1, 0.5, 8),), lambda r: (np.linspace(0.2, 0.3, 3),),
         data_dependent=False, ir=("for_loop",))
def levinson_durbin(r):
    # np.flip of a run-time slice, and an update of y[:k] in place
    y = np.empty_like(r)
    alpha, beta = -r[0], 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y


@program(lambda r: (normal(r, 5, 6), 0.5), lambda r: (normal(r, 2, 3), 2.0),
         data_dependent=False, ir=("for_loop",))
def lower_triangle_update(C, alpha):
    # C[i, :i + 1] (a row prefix) and A[:i + 1, k] (a column prefix) in one update
    for i in range(C.shape[0]):
        C[i, :i + 1] *= 0.5
        for k in range(C.shape[1]):
            C[i, :i + 1] += alpha * C[i, k] * C[:i + 1, k]
    return C


@program(lambda r: (normal(r, 7, 7) + 8.0 * np.eye(7),),
         lambda r: (normal(r, 3, 3, dtype=np.float32) + 4.0 * np.eye(3, dtype=np.float32),),
         data_dependent=False, ir=("for_loop",))
def right_looking_lu(a):
    # np.outer of a column and a row of run-time length, subtracted from a 2-D window
    for k in range(a.shape[0]):
        a[k + 1:, k] = a[k + 1:, k] / a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a


@program(lambda r: (normal(r, 6, 5),), lambda r: (normal(r, 3, 2),), data_dependent=False,
         ir=("for_loop",))
def covariance_triangle(data):
    # a vector-matrix product over columns i:M, assigned to a row and a column
    m = data.shape[1]
    cov = np.zeros((m, m))
    for i in range(m):
        cov[i:m, i] = cov[i, i:m] = data[:, i] @ data[:, i:m] / (data.shape[0] - 1.0)
    return cov


@program(lambda r: (np.abs(normal(r, 12)), 3.0), lambda r: (np.abs(normal(r, 4)), 100.0),
         data_dependent=True, ir=("while_loop",))
def shortest_prefix_over(x, target):
    # a while loop whose test sums a prefix of run-time length
    n = 1
    while n < x.shape[0] and x[:n].sum() < target:
        n += 1
    return n


@program(lambda r: (r.random(400), r.random(400) * 3.0, 8),
         lambda r: (r.random(50), r.random(50), 3), data_dependent=True,
         ir=("for_loop", "cond"))
def azimuthal_means(data, radius, bins):
    # x[mask] with a traced mask: its length is known at run time only
    rmax = radius.max()
    res = np.zeros(bins)
    for i in range(bins):
        ring = np.logical_and(rmax * i / bins <= radius, radius < rmax * (i + 1) / bins)
        res[i] = data[ring].mean() if ring.any() else 0.0
    return res


@program(lambda r: (normal(r, 6, 5),), lambda r: (normal(r, 3, 2, dtype=np.float32),),
         data_dependent=False, ir=())
def clipped_inverse_cubes(d):
    # the selected entries get a function of themselves (x[m] = f(x[m]))
    r3 = d * d + 0.1
    r3[r3 > 0.5] = r3[r3 > 0.5] ** -1.5
    return r3


def _csr(r: np.random.Generator, rows: int, cols: int) -> tuple:
    dense = np.where(r.random((rows, cols)) < 0.3, r.normal(size=(rows, cols)), 0.0)
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int32)
    indices = np.nonzero(dense)[1].astype(np.int32)
    return indptr, indices, dense[dense != 0], r.normal(size=cols)


@program(lambda r: _csr(r, 9, 7), lambda r: _csr(r, 3, 4), data_dependent=False,
         ir=("for_loop",))
def csr_matvec(indptr, indices, values, x):
    # x[cols] with an index array whose length is known at run time only
    y = np.empty(indptr.size - 1, values.dtype)
    for i in range(indptr.size - 1):
        cols = indices[indptr[i]:indptr[i + 1]]
        y[i] = values[indptr[i]:indptr[i + 1]] @ x[cols]
    return y


# ------------------------------- lists and dicts changed in place by traced control flow


@program(lambda r: (normal(r, 4), normal(r, 4), 0.1),
         lambda r: (normal(r, 3, 2), normal(r, 2), 0.05),
         data_dependent=False, ir=("for_loop",), python_loops=1)
def dict_params_descent(w, b, lr):
    # training-style state: a dict of arrays, each replaced every step (the
    # loop carries the dict's items; the loop over its keys runs while tracing)
    params = {"w": w, "b": b}
    for _ in range(12):
        for k in params:
            params[k] = params[k] - lr * np.tanh(params[k])
    return params["w"].sum() + params["b"].sum()


@program(lambda r: (np.abs(normal(r, 4)) + 0.1,), lambda r: (-np.abs(normal(r, 4)) - 0.1,),
         lambda r: (np.abs(normal(r, 3, dtype=np.float32)),),
         lambda r: (-np.abs(normal(r, 3, dtype=np.float32)),),
         data_dependent=True, ir=("cond",))
def appends_in_both_branches(x):
    # both paths append one item: the list's new item is joined like a variable
    parts = [x[:1]]
    if x.sum() > 0:
        parts.append(x * 2)
    else:
        parts.append(x - 1)
    return np.concatenate(parts)


@program(lambda r: (normal(r, 5) * 10,), lambda r: (normal(r, 5) * 0.1,),
         lambda r: (normal(r, 2, 3) * 40,),
         data_dependent=True, ir=("while_loop",))
def halvings_in_a_list(x):
    # a list used as mutable state: its items are replaced each iteration
    state = [x, 0]
    while np.abs(state[0]).max() > 1.0:
        state[0] = state[0] / 2
        state[1] += 1
    return state[0], state[1]


# ------------------------------------- arrays whose length changes between iterations


@program(lambda r: (-2.25, 0.75, -1.25, 1.25, 12, 9, 15),
         lambda r: (-1.5, 0.5, -1.0, 1.0, 6, 5, 4),
         lambda r: (2.0, 3.0, 2.0, 3.0, 6, 5, 4),  # all escape at once: the break
         data_dependent=True, ir=("for_loop", "cond"))
def escape_time_of_the_points_left(xmin, xmax, ymin, ymax, xn, yn, itermax):
    # NPBench's mandelbrot2: the arrays of points still inside shrink every
    # iteration (a run-time length the loop carries), scattered back by index
    Xi, Yi = np.mgrid[0:xn, 0:yn]
    X = np.linspace(xmin, xmax, xn)[Xi]
    Y = np.linspace(ymin, ymax, yn)[Yi]
    C = X + Y * 1j
    N_ = np.zeros((xn, yn), dtype=np.int64)
    Xi.shape = Yi.shape = C.shape = xn * yn  # in place, as NPBench writes it
    Z = np.zeros(C.shape, np.complex128)
    for i in range(itermax):
        if not len(Z):
            break
        Z = Z * Z + C
        escaped = np.abs(Z) > 2.0
        N_[Xi[escaped], Yi[escaped]] = i + 1
        inside = ~escaped
        Z, Xi, Yi, C = Z[inside], Xi[inside], Yi[inside], C[inside]
    return N_.T
