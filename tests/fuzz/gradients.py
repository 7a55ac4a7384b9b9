"""Gradients of smooth fuzz programs against central finite differences.

For a program of float64 and complex128 arrays built from differentiable
operations, the objective ``sum(Re(w_k * out_k))`` over its outputs (fixed
random weights, complex for complex outputs) is
differentiated by ``jitaic.grad`` with respect to every argument and compared
with ``helpers.finite_difference`` of the NumPy program. Where differences
with two step sizes disagree, the point is not smooth (an ``if`` or ``where``
flips nearby) and nothing is concluded.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from helpers import copy_tree, finite_difference

import jitaic

from .oracle import Verdict, leaves, quiet, refused, run

RTOL, ATOL = 1e-4, 1e-6


def _objective(fn: Callable, weights: list[np.ndarray]) -> Callable:
    def objective(*args):
        total = 0.0
        for w, out in zip(weights, leaves(fn(*args))):
            total = total + np.real(w * out).sum()
        return total

    return objective


_DIFFERENTIABLE = (np.dtype(np.float64), np.dtype(np.complex128))


def _weights(rng: np.random.Generator, out: object) -> np.ndarray:
    w = rng.normal(size=np.shape(out))
    return w + 1j * rng.normal(size=np.shape(out)) if np.iscomplexobj(out) else w


def check_gradients(fn: Callable, make_args: Callable) -> Verdict | None:
    """A verdict on ``jitaic.grad``, or None where gradients cannot be checked."""
    args = make_args()
    if any(np.shares_memory(x, y) for i, x in enumerate(args) for y in args[:i]):
        return None  # one buffer, two arguments: no gradient per argument
    want = run(fn, lambda: copy_tree(args))
    if want.error is not None:
        return None
    outs = leaves(want.result)
    if not all(np.asarray(o).dtype in _DIFFERENTIABLE and np.isfinite(o).all() for o in outs):
        return None
    rng = np.random.default_rng(len(outs))
    objective = _objective(fn, [_weights(rng, o) for o in outs])
    argnums = tuple(range(len(args)))
    try:
        got = jitaic.grad(objective, argnums=argnums)(*make_args())
    except Exception as exc:
        if refused(exc):
            return Verdict("grad", "unsupported", type(exc).__name__,
                           str(exc).splitlines()[0])
        return Verdict("grad", "mismatch", f"grad-error:{type(exc).__name__}", repr(exc))

    def numpy_objective(*xs):
        with quiet():
            return float(objective(*copy_tree(xs)))

    for k in argnums:
        want = finite_difference(numpy_objective, args, k)
        g = np.asarray(got[k])
        if g.shape != want.shape or g.dtype != want.dtype:
            return Verdict("grad", "mismatch", "grad-structure",
                           f"d/d(argument {k}): {g.dtype}{g.shape}, want "
                           f"{want.dtype}{want.shape}")
        scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
        bad = ~np.isclose(g, want, rtol=RTOL, atol=ATOL * scale)
        if not bad.any():
            continue
        coarse = finite_difference(numpy_objective, args, k, eps=1e-4)
        if not np.allclose(coarse, want, rtol=1e-3, atol=1e-4 * scale):
            return None  # not smooth here
        at = tuple(map(int, np.argwhere(bad)[0]))
        if _kink(numpy_objective, args, k, at, 1e-4 * scale):
            return None
        return Verdict("grad", "mismatch", "grad-values",
                       f"d/d(argument {k}) at {at}: jitaic {g[at]!r}, differences {want[at]!r}")
    return Verdict("grad", "ok")


def _kink(objective: Callable, args: tuple, k: int, at: tuple, atol: float) -> bool:
    """Whether the slopes on either side of element ``at`` of argument ``k``
    differ: a kink there (abs of a value within a step of 0), which central
    differences of any step straddle and see as flat."""
    x = np.asarray(args[k])
    units = (1.0, 1j) if x.dtype.kind == "c" else (1.0,)
    h = 1e-6

    def at_step(step: complex) -> float:
        moved = x.astype(x.dtype, copy=True)
        moved[at] += step
        return objective(*args[:k], moved, *args[k + 1:])

    centre = at_step(0.0)
    for unit in units:
        forward = (at_step(h * unit) - centre) / h
        backward = (centre - at_step(-h * unit)) / h
        if not np.isclose(forward, backward, rtol=1e-3, atol=atol):
            return True
    return False
