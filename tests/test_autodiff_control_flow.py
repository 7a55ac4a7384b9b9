"""Gradients through compiled control flow: cond and for loops (AST frontend)."""

from __future__ import annotations

import numpy as np
import pytest

import jitaic


def finite_difference(fn, args, argnum, eps=1e-6):
    x = np.array(args[argnum], dtype=np.float64)
    grad = np.zeros_like(x)
    for i in range(x.size):
        plus, minus = x.copy(), x.copy()
        plus.flat[i] += eps
        minus.flat[i] -= eps
        hi = fn(*args[:argnum], plus, *args[argnum + 1:])
        lo = fn(*args[:argnum], minus, *args[argnum + 1:])
        grad.flat[i] = (hi - lo) / (2 * eps)
    return grad


def branchy(x, w):
    y = x * w
    if y.sum() > 0:
        z = np.sin(y) * w
    else:
        z = y ** 2 + x
    return z.sum()


def nested_branches(x):
    s = x.sum()
    if s > 1.0:
        if x[0] > 0:
            out = np.exp(x).sum()
        else:
            out = (x * x).sum()
    else:
        out = np.tanh(x).sum() * s
    return out


def recurrent(x, w):
    h = x * 0.0
    acc = 0.0
    for i in range(x.shape[0]):
        h = np.tanh(h * w + x[i])
        acc = acc + h.sum() * x[i]
    return acc


def loop_with_branch(x):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            total = total + x[i] ** 2
        else:
            total = total - np.sin(x[i])
    return total


def converge(x):
    y = x
    while np.abs(y).max() > 1.0:
        y = y * 0.5
    return y.sum()


CASES = [
    (branchy, lambda r: (r.normal(size=4) + 1.0, np.abs(r.normal(size=4))), (0, 1)),
    (branchy, lambda r: (-np.abs(r.normal(size=4)) - 1.0, np.abs(r.normal(size=4))), (0, 1)),
    (nested_branches, lambda r: (np.abs(r.normal(size=3)) + 1.0,), (0,)),
    (nested_branches, lambda r: (np.array([-0.5, 1.2, 0.9]),), (0,)),
    (nested_branches, lambda r: (r.normal(size=3) * 0.1 - 1.0,), (0,)),
    (recurrent, lambda r: (r.normal(size=5) * 0.5, r.normal(size=5) * 0.5), (0, 1)),
    (loop_with_branch, lambda r: (r.normal(size=6),), (0,)),
]


@pytest.mark.parametrize("mode", ["auto", "ast"])
@pytest.mark.parametrize("fn, make, argnums", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_gradient_through_control_flow(fn, make, argnums, mode, rng) -> None:
    args = make(rng)
    grads = jitaic.jit(jitaic.grad(fn, argnums=argnums), mode=mode)(*args)
    for argnum, grad in zip(argnums, grads, strict=True):
        expected = finite_difference(fn, list(args), argnum)
        np.testing.assert_allclose(grad, expected, rtol=1e-5, atol=1e-7)


def test_loop_gradient_is_a_compiled_loop_not_unrolled(rng) -> None:
    x, w = rng.normal(size=40) * 0.1, rng.normal(size=40) * 0.1
    f = jitaic.jit(jitaic.grad(recurrent, argnums=(0, 1)), mode="ast")
    f(x, w)
    ir = f.specializations()[0].ir
    assert ir.count("for_loop") >= 2  # the recording loop and the reverse loop
    assert ir.count("tanh") < 10  # one body, not 40 unrolled copies


def test_while_loop_gradient_is_reported_as_unsupported() -> None:
    f = jitaic.jit(jitaic.grad(converge), mode="ast")
    with pytest.raises(jitaic.UnsupportedError, match="while_loop"):
        f(np.array([4.0, -3.0]))
