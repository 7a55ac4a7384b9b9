"""Autodiff benchmarks: jitaic.grad / value_and_grad vs hand-written gradients (vs jax).

    python benchmarks/bench_autodiff.py            # full run
    python benchmarks/bench_autodiff.py --quick    # fewer repeats
    python benchmarks/bench_autodiff.py --filter MLP

Workloads:

- one training step of a 784-256-10 tanh MLP with softmax cross-entropy on a
  batch of 256 (loss, gradients w.r.t. a dict of W1, b1, W2, b2, SGD update).
  "jitaic" is ``jitaic.jit(step)`` where ``step`` calls
  ``jitaic.value_and_grad(loss)``; "numpy" and "numba" are hand-written
  backprop (numba: ``njit`` with ``np.dot``); "jitaic hand" is
  ``jitaic.jit`` of the NumPy backprop source; "jax" is
  ``jax.jit`` of the same step built on ``jax.value_and_grad``.
  The first row times value and gradients alone, the second the whole step.
- logistic regression on 1000x20 data: one gradient, then 200 steps of
  gradient descent inside ONE jitted function (``for _ in range(steps)``
  with ``jitaic.grad(loss)`` called in the loop body).  "numpy" and "jitaic
  hand" run the hand-written gradient; "numba" is a hand-written loop.
- the gradient through a data-dependent ``while`` loop (about 1000 iterations
  of ``y = tanh(y * w + 0.5)`` over a 256-vector until the running sum of
  ``mean(y)`` reaches 1000): ``jitaic.jit(jitaic.grad(f))`` against the
  forward ``jitaic.jit(f)`` (target: grad/forward <= 3), the gradient
  checked against central finite differences of the NumPy forward.  jax
  cannot reverse-differentiate ``lax.while_loop``; its gradient column is
  forward mode (``jax.jacfwd``).

The one-time cost of numba's np.dot / transpose overloads (several seconds,
paid by the first matmul compile in a process) is paid in a warm-up, so the
first-call columns compare the functions themselves.

Every gradient is checked (against the hand-written one, or finite
differences) before any timing.  Conventions (side by side, float64, medians
of interleaved batches, BLAS pinned to one thread, exit status 1 on any
failure) are those of bench_core; see harness.py.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import harness  # first: pins BLAS to one thread before numpy loads it
import numba
import numpy as np
from harness import (
    Builder,
    Cell,
    fmt_ms,
    fmt_s,
    jax,
    jax_impl,
    jitaic_impl,
    jnp,
    numba_impl,
    numpy_impl,
    print_table,
    ratio,
)

import jitaic

lax = jax.lax if jax is not None else None

PARAMS = ("W1", "b1", "W2", "b2")
WHILE = "grad through a while loop"


# --------------------------------------------------------------------------
# (a) MLP 784-256-10 training step
# --------------------------------------------------------------------------


def mlp_loss(params, x, y):
    """Mean softmax cross-entropy of a one-hidden-layer tanh MLP."""
    h = np.tanh(x @ params["W1"] + params["b1"])
    z = h @ params["W2"] + params["b2"]
    z = z - z.max(axis=1, keepdims=True)
    log_probs = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -(log_probs * y).sum() / x.shape[0]


def mlp_value_and_grad_np(params, x, y):
    """The same loss and its gradients, backpropagated by hand (y is one-hot)."""
    h = np.tanh(x @ params["W1"] + params["b1"])
    z = h @ params["W2"] + params["b2"]
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    n = x.shape[0]
    loss = -((z - np.log(s)) * y).sum() / n
    dz = (e / s - y) / n
    dh = (dz @ params["W2"].T) * (1.0 - h * h)
    grads = {
        "W1": x.T @ dh,
        "b1": dh.sum(axis=0),
        "W2": h.T @ dz,
        "b2": dz.sum(axis=0),
    }
    return loss, grads


def make_step(value_and_grad: Callable) -> Callable:
    """One SGD step on top of a ``(loss, grads)`` function, the same for every column."""

    def step(params, x, y, lr):
        loss, grads = value_and_grad(params, x, y)
        return loss, {k: params[k] - lr * grads[k] for k in params}

    return step


mlp_step_jitaic = make_step(jitaic.value_and_grad(mlp_loss))  # traced inside jitaic.jit
mlp_step_np = make_step(mlp_value_and_grad_np)


def mlp_value_and_grad_loop(W1, b1, W2, b2, x, y):
    n = x.shape[0]
    h = np.dot(x, W1)  # BLAS, as numba users do
    k = h.shape[1]
    for i in range(n):
        for j in range(k):
            h[i, j] = np.tanh(h[i, j] + b1[j])
    z = np.dot(h, W2)
    c = z.shape[1]
    loss = 0.0
    for i in range(n):
        mx = -np.inf
        for j in range(c):
            z[i, j] += b2[j]
            mx = max(mx, z[i, j])
        s = 0.0
        for j in range(c):
            z[i, j] = np.exp(z[i, j] - mx)
            s += z[i, j]
        for j in range(c):  # z becomes dz = (softmax - y) / n
            p = z[i, j] / s
            if y[i, j] != 0.0:
                loss -= y[i, j] * np.log(p)
            z[i, j] = (p - y[i, j]) / n
    gW2 = np.dot(h.T, z)
    gb2 = np.zeros(c, z.dtype)
    for i in range(n):
        for j in range(c):
            gb2[j] += z[i, j]
    dh = np.dot(z, W2.T)
    gb1 = np.zeros(k, dh.dtype)
    for i in range(n):
        for j in range(k):
            dh[i, j] *= 1.0 - h[i, j] * h[i, j]
            gb1[j] += dh[i, j]
    gW1 = np.dot(x.T, dh)
    return loss / n, gW1, gb1, gW2, gb2


def mlp_loss_jax(params, x, y):
    h = jnp.tanh(x @ params["W1"] + params["b1"])
    z = h @ params["W2"] + params["b2"]
    z = z - z.max(axis=1, keepdims=True)
    log_probs = z - jnp.log(jnp.exp(z).sum(axis=1, keepdims=True))
    return -(log_probs * y).sum() / x.shape[0]


def numba_mlp_impl(kind: str) -> Builder:
    """The numba backprop behind a thin wrapper taking and returning the params dict."""

    def build(args):
        value_and_grad = numba.njit(mlp_value_and_grad_loop)  # fresh: first call compiles
        if kind == "grads":

            def fn(params, x, y):
                loss, *grads = value_and_grad(*(params[k] for k in PARAMS), x, y)
                return loss, dict(zip(PARAMS, grads))

            return fn, args

        @numba.njit
        def step(W1, b1, W2, b2, x, y, lr):
            loss, gW1, gb1, gW2, gb2 = value_and_grad(W1, b1, W2, b2, x, y)
            return loss, W1 - lr * gW1, b1 - lr * gb1, W2 - lr * gW2, b2 - lr * gb2

        def fn(params, x, y, lr):
            loss, *new = step(*(params[k] for k in PARAMS), x, y, lr)
            return loss, dict(zip(PARAMS, new))

        return fn, args

    return build


def mlp_inputs(rng) -> tuple:
    x = rng.standard_normal((256, 784))
    y = np.eye(10)[rng.integers(0, 10, 256)]
    params = {
        "W1": rng.standard_normal((784, 256)) / np.sqrt(784),
        "b1": rng.standard_normal(256) * 0.1,
        "W2": rng.standard_normal((256, 10)) / np.sqrt(256),
        "b2": rng.standard_normal(10) * 0.1,
    }
    return params, x, y


# --------------------------------------------------------------------------
# (b) logistic regression: 200 gradient-descent steps in one jitted function
# --------------------------------------------------------------------------


def logreg_loss(w, X, y):
    """Mean logistic loss, softplus(z) - y z written the numerically stable way."""
    z = X @ w
    return np.mean(np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z))) - y * z)


logreg_grad = jitaic.grad(logreg_loss)


def logreg_train(w, X, y, lr, steps):
    for _ in range(steps):
        w = w - lr * logreg_grad(w, X, y)
    return w


def logreg_grad_np(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return X.T @ (p - y) / X.shape[0]


def logreg_train_np(w, X, y, lr, steps):
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        w = w - lr * (X.T @ (p - y) / X.shape[0])
    return w


def logreg_grad_loop(w, X, y):
    n, d = X.shape
    g = np.zeros(d, X.dtype)
    for i in range(n):
        z = 0.0
        for j in range(d):
            z += X[i, j] * w[j]
        r = 1.0 / (1.0 + np.exp(-z)) - y[i]
        for j in range(d):
            g[j] += X[i, j] * r
    for j in range(d):
        g[j] /= n
    return g


def logreg_train_loop(w, X, y, lr, steps):
    n, d = X.shape
    w = w.copy()
    g = np.empty(d)
    for _ in range(steps):
        g[:] = 0.0
        for i in range(n):
            z = 0.0
            for j in range(d):
                z += X[i, j] * w[j]
            r = 1.0 / (1.0 + np.exp(-z)) - y[i]
            for j in range(d):
                g[j] += X[i, j] * r
        for j in range(d):
            w[j] -= lr * (g[j] / n)
    return w


def logreg_loss_jax(w, X, y):
    z = X @ w
    return jnp.mean(jnp.maximum(z, 0.0) + jnp.log1p(jnp.exp(-jnp.abs(z))) - y * z)


def logreg_grad_jax(w, X, y):
    return jax.grad(logreg_loss_jax)(w, X, y)


def logreg_train_jax(w, X, y, lr, steps):
    grad = jax.grad(logreg_loss_jax)
    return lax.fori_loop(0, steps, lambda _, w: w - lr * grad(w, X, y), w)


def logreg_inputs(rng) -> tuple:
    X = rng.standard_normal((1000, 20))
    y = (X @ rng.standard_normal(20) + rng.standard_normal(1000) > 0).astype(np.float64)
    # not zeros: at z == 0 the stable formula's kinks (abs, maximum) are hit exactly,
    # where every framework's subgradient convention differs from sigmoid(0) - y
    w = rng.standard_normal(20) * 0.1
    return w, X, y


# --------------------------------------------------------------------------
# (c) gradient through a data-dependent while loop
# --------------------------------------------------------------------------


def while_loss(w, y0):
    y = y0
    s = 0.0
    while s < 1000.0:
        y = np.tanh(y * w + 0.5)
        s = s + np.mean(y)
    return np.sum(y * y)


def while_loss_loop(w, y0):
    y = y0.copy()
    n = y.shape[0]
    s = 0.0
    while s < 1000.0:
        m = 0.0
        for i in range(n):
            y[i] = np.tanh(y[i] * w[i] + 0.5)
            m += y[i]
        s = s + m / n
    r = 0.0
    for i in range(n):
        r += y[i] * y[i]
    return r


def while_iterations(w, y0) -> tuple[int, float]:
    """The NumPy forward's trip count and how far its final sum passed 1000."""
    y, s, n = y0, 0.0, 0
    while s < 1000.0:
        y = np.tanh(y * w + 0.5)
        s = s + np.mean(y)
        n += 1
    return n, s - 1000.0


def central_differences(f: Callable, w: np.ndarray, *rest, h: float = 1e-6) -> np.ndarray:
    g = np.empty_like(w)
    for i in range(w.size):
        e = np.zeros_like(w)
        e[i] = h
        g[i] = (f(w + e, *rest) - f(w - e, *rest)) / (2 * h)
    return g


def while_loss_jax(w, y0):
    def body(carry):
        y, s = carry
        y = jnp.tanh(y * w + 0.5)
        return y, s + jnp.mean(y)

    y, _ = lax.while_loop(lambda c: c[1] < 1000.0, body, (y0, jnp.zeros((), y0.dtype)))
    return jnp.sum(y * y)


def while_inputs(rng) -> tuple:
    return rng.uniform(0.5, 1.5, 256), rng.uniform(-1.0, 1.0, 256)


# --------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------


def jax_or_none(fn: Callable, **options) -> Builder | None:
    return jax_impl(fn, **options) if jax is not None else None


@dataclass
class Row:
    name: str
    size: str
    builders: dict[str, Builder | None]  # None: a column that does not apply (no jax)
    args: tuple
    reference: Callable  # the checked-against result: reference(*args)
    rtol: float
    atol: float = 1e-12


def gradient_rows(rng) -> list[Row]:
    """The MLP and logistic-regression rows (inputs drawn whatever --filter says)."""
    params, x, y = mlp_inputs(rng)
    w, X, t = logreg_inputs(rng)
    steps = 200
    return [
        # value and gradients alone: the check of every gradient against hand backprop
        Row(
            "MLP 784-256-10 value+grads",
            "batch 256",
            {
                "numpy": numpy_impl(mlp_value_and_grad_np),
                "numba": numba_mlp_impl("grads"),
                "jitaic": jitaic_impl(jitaic.value_and_grad(mlp_loss)),
                "jitaic hand": jitaic_impl(mlp_value_and_grad_np),
                "jax": jax_or_none(lambda p, x, y: jax.value_and_grad(mlp_loss_jax)(p, x, y)),
            },
            (params, x, y),
            mlp_value_and_grad_np,
            rtol=1e-8,
        ),
        Row(
            "MLP 784-256-10 SGD step",
            "batch 256",
            {
                "numpy": numpy_impl(mlp_step_np),
                "numba": numba_mlp_impl("step"),
                "jitaic": jitaic_impl(mlp_step_jitaic),
                "jitaic hand": jitaic_impl(mlp_step_np),
                "jax": jax_or_none(make_step(jax.value_and_grad(mlp_loss_jax)) if jax else None),
            },
            (params, x, y, 0.1),
            mlp_step_np,
            rtol=1e-8,
        ),
        Row(
            "logistic regression gradient",
            "1000x20",
            {
                "numpy": numpy_impl(logreg_grad_np),
                "numba": numba_impl(logreg_grad_loop),
                "jitaic": jitaic_impl(logreg_grad),
                "jitaic hand": jitaic_impl(logreg_grad_np),
                "jax": jax_or_none(logreg_grad_jax),
            },
            (w, X, t),
            logreg_grad_np,
            rtol=1e-9,
        ),
        Row(
            f"logistic regression {steps} GD steps in one jit",
            "1000x20",
            {
                "numpy": numpy_impl(logreg_train_np),
                "numba": numba_impl(logreg_train_loop),
                "jitaic": jitaic_impl(logreg_train),  # jitaic.grad inside the jitted loop
                "jitaic hand": jitaic_impl(logreg_train_np),
                "jax": jax_or_none(logreg_train_jax, static_argnums=(4,)),
            },
            (w, X, t, 0.5, steps),
            logreg_train_np,
            rtol=1e-9,
        ),
    ]


def run_row(row: Row, opts) -> dict[str, Cell]:
    builders = {k: b for k, b in row.builders.items() if b is not None}
    args = harness.as_dtype(row.args, opts.dtype)
    expected = row.reference(*args)
    rtol, atol = harness.tolerances(row.rtol, row.atol, opts.dtype)
    cells = harness.run_impls(builders, args, expected, opts, rtol=rtol, atol=atol)
    harness.progress(row.name, row.size, cells)
    return cells


def bench_while(rng, opts) -> tuple[str, str, dict[str, Cell], int]:
    w, y0 = while_inputs(rng)
    iterations, margin = while_iterations(w, y0)
    h = 1e-6
    # the difference quotients must all see the same trip count (no jump in between)
    assert margin > 1e-3, f"the loop ends {margin} past 1000: too close for differences"
    fd = harness.as_dtype(central_differences(while_loss, w, y0, h=h), opts.dtype)
    builders = {
        "numpy fwd": numpy_impl(while_loss),
        "numba fwd": numba_impl(while_loss_loop),
        "jitaic fwd": jitaic_impl(while_loss),
        "jitaic grad": jitaic_impl(jitaic.grad(while_loss)),
        "jax fwd": jax_or_none(while_loss_jax),
        "jax grad": jax_or_none(jax.jacfwd(while_loss_jax) if jax else None),
    }
    builders = {k: b for k, b in builders.items() if b is not None}
    # in float32 the differences stay float64's: float32's own would be noise
    checks = {k: (fd, *harness.tolerances(1e-6, 1e-7, opts.dtype))
              for k in builders if k.endswith("grad")}
    args = harness.as_dtype((w, y0), opts.dtype)
    cells = harness.run_impls(builders, args, while_loss(*args), opts,
                              *harness.tolerances(1e-10, 1e-12, opts.dtype), checks=checks)
    row = (WHILE, "256", cells, iterations)
    harness.progress(*row[:3])
    return row


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    opts = harness.parse_args(__doc__.splitlines()[0], argv)
    harness.print_header("jitaic autodiff benchmarks", opts)
    harness.warm_up(matmul=True)

    rng = np.random.default_rng(0)
    t_start = time.perf_counter()
    rows = [
        (row.name, row.size, run_row(row, opts))
        for row in gradient_rows(rng)
        if opts.selected(row.name)
    ]
    loop = bench_while(rng, opts) if opts.selected(WHILE) else None

    impls = ["numpy", "numba", "jitaic", "jitaic hand", "jax"]
    if rows:
        print("## Cached-call time (ms per call; lower is better)\n")
        print(
            "numpy, numba and jitaic hand: hand-written gradients; jitaic: jitaic.grad / "
            "value_and_grad; jax: jax.grad / value_and_grad.\n"
        )
        print_table(
            ["workload", "size"]
            + [f"{k} ms" for k in impls]
            + ["jitaic/numba", "numpy/jitaic", "jitaic/jitaic hand"],
            [
                [name, size]
                + [fmt_ms(c.get(k)) for k in impls]
                + [ratio(c["jitaic"], c["numba"]), ratio(c["numpy"], c["jitaic"])]
                + [ratio(c["jitaic"], c["jitaic hand"])]
                for name, size, c in rows
            ],
        )
        print("\n## First call of a fresh jit function (s: compile + one run)\n")
        print_table(
            ["workload", "size"] + [f"{k} s" for k in impls[1:]],
            [[name, size] + [fmt_s(c.get(k)) for k in impls[1:]] for name, size, c in rows],
        )

    if loop is not None:
        name, size, c, iterations = loop
        print(f"\n## Gradient through a data-dependent while loop ({iterations} iterations)\n")
        print(
            "numba fwd: a hand-written loop; "
            "jitaic grad: jitaic.jit(jitaic.grad(f)), checked against central finite "
            "differences; jax grad: jax.jacfwd (reverse mode through lax.while_loop is "
            "not supported by jax).\n"
        )
        cols = ["numpy fwd", "numba fwd", "jitaic fwd", "jitaic grad", "jax fwd", "jax grad"]
        print_table(
            ["workload", "size"] + [f"{k} ms" for k in cols] + ["jitaic grad/fwd (target <= 3)"],
            [
                [name, size]
                + [fmt_ms(c.get(k)) for k in cols]
                + [ratio(c["jitaic grad"], c["jitaic fwd"])]
            ],
        )
        print()
        print_table(
            ["workload", "size"] + [f"{k} s" for k in cols[1:]],
            [[name, size] + [fmt_s(c.get(k)) for k in cols[1:]]],
        )

    results = [(f"{name} [{size}]", c) for name, size, c in rows]
    if loop is not None:
        results.append((f"{loop[0]} [{loop[1]}]", loop[2]))
    return harness.finish(harness.failures_of(results), t_start)


if __name__ == "__main__":
    sys.exit(main())
