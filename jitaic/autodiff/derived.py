"""Transformations built from reverse mode: jvp, jacobian and hessian.

``jvp`` differentiates the VJP: ``<J^T u, t>`` is linear in the output
cotangent ``u``, and its gradient with respect to ``u`` is ``J t`` (reverse
over reverse), so Jacobian-vector products need no forward rule per op and
go through loops and branches wherever gradients of gradients do. A reverse
``jacobian`` runs the VJP once per output element, a forward one the JVP
once per input element, each in a compiled loop over one-hot vectors (the
loop body is traced once). ``hessian`` is the reverse jacobian of the
gradient. All of them are compiled and cached per shape like ``grad``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from jitaic.autodiff.reverse import _Transformed, _vjp_traced, grad, value_and_grad_traced
from jitaic.errors import UnsupportedError
from jitaic.tracer import loops
from jitaic.tracer import numpy as tnp
from jitaic.tracer.core import Tracer, is_tracing
from jitaic.tracer.numpy_proxy import traceable
from jitaic.tracer.trace import flatten, unflatten

MODES = ("reverse", "forward")


def jvp(fn: Callable, primals: tuple, tangents: tuple) -> tuple[object, object]:
    """``(fn(*primals), J @ tangents)``: the derivative of ``fn`` at ``primals``
    along ``tangents`` (one per primal, of the same structure and shapes)."""
    primals, tangents = tuple(primals), tuple(tangents)
    if is_tracing():
        return _jvp_traced(fn, primals, tangents)
    from jitaic.api import jit

    def value_and_derivative(primals, tangents):
        return _jvp_traced(fn, primals, tangents)

    value_and_derivative.__name__ = f"jvp_{getattr(fn, '__name__', 'f')}"
    return jit(value_and_derivative)(primals, tangents)


def _jvp_traced(fn: Callable, primals: tuple, tangents: tuple) -> tuple[object, object]:
    if len(primals) != len(tangents):
        raise TypeError(f"jvp takes one tangent per primal: {len(primals)} primals, "
                        f"{len(tangents)} tangents")
    out = traceable(fn)(*primals)
    out_leaves, out_tree = flatten(out)
    tangent_leaves = flatten(tangents)[0]

    def dual(cotangent):  # <J^T u, t>: linear in u, its gradient is J t
        _, pullback = _vjp_traced(fn, primals)
        total = 0.0
        for ct, t in zip(flatten(pullback(cotangent))[0], tangent_leaves, strict=True):
            total = total + (ct * tnp.as_tracer(t)).sum()
        return total

    point = unflatten(out_tree, [_generic_point(tnp.as_tracer(o)) for o in out_leaves])
    _, derivative = value_and_grad_traced(dual, 0, False, (point,), {})
    return out, derivative


def _generic_point(o: Tracer) -> Tracer:
    """Where to differentiate the dual: any u gives J t, but not u = 0, where
    the VJP rules pass no gradient through an infinite local derivative (a
    zero cotangent stops it), and so their derivative in u is lost. Distinct
    values in [1, 2) keep internal cotangents away from zero too."""
    count = int(np.prod(o.shape, dtype=np.int64))
    values = 1.0 + np.modf(np.arange(1, count + 1) * 0.6180339887498949)[0]
    return tnp.as_tracer(values.reshape(o.shape).astype(_float_dtype(o)))


def _float_dtype(x: object) -> np.dtype:
    dtype = tnp.as_tracer(x).dtype
    if dtype.kind != "f":
        raise TypeError(f"jvp and jacobian need float outputs, got {dtype}")
    return dtype


def jacobian(fn: Callable, argnums: int = 0, mode: str = "reverse") -> Callable:
    """The Jacobian of ``fn`` with respect to argument ``argnums`` (an array):
    an array of shape ``out.shape + x.shape``. ``mode="reverse"`` runs one VJP
    per output element (wide Jacobians, gradients of few outputs);
    ``"forward"`` one JVP per input element (tall Jacobians)."""
    if mode not in MODES:
        raise ValueError(f"jacobian mode must be one of {MODES}, got {mode!r}")
    if not isinstance(argnums, int):
        raise UnsupportedError("jacobian takes one argument number (an int): Jacobians "
                               "with respect to several arguments are not supported yet")

    def traced(*args, **kwargs):
        return _jacobian_traced(fn, argnums, mode, args, kwargs)

    return _Transformed(fn, traced, (jacobian, (argnums, mode)))


def hessian(fn: Callable, argnums: int = 0) -> Callable:
    """The Hessian of a scalar ``fn`` with respect to argument ``argnums``: the
    reverse Jacobian of its gradient, shape ``x.shape + x.shape``."""
    if not isinstance(argnums, int):
        raise UnsupportedError("hessian takes one argument number (an int)")

    def traced(*args, **kwargs):
        return _jacobian_traced(grad(fn, argnums), argnums, "reverse", args, kwargs)

    return _Transformed(fn, traced, (hessian, (argnums,)))


def _jacobian_traced(fn: Callable, argnum: int, mode: str, args: tuple,
                     kwargs: dict) -> Tracer:
    if argnum >= len(args):
        raise TypeError(f"argnums {argnum} is out of range for {len(args)} positional "
                        f"arguments")
    x = tnp.as_tracer(args[argnum])
    if x.dtype.kind != "f":
        raise TypeError(f"jacobian requires a float argument, but argument {argnum} has "
                        f"dtype {x.dtype}")

    def of_x(x):
        leaves = flatten(traceable(fn)(*args[:argnum], x, *args[argnum + 1:], **kwargs))[0]
        if len(leaves) != 1:
            raise UnsupportedError("jacobian needs a function returning one array")
        return tnp.as_tracer(leaves[0])

    if mode == "reverse":
        out, pullback = _vjp_traced(of_x, (x,))
        out = tnp.as_tracer(out)
        rows = _one_hot_loop(out, lambda u: pullback(u)[0], x)
        return tnp.reshape(rows, out.shape + x.shape)
    out = tnp.as_tracer(of_x(x))
    columns = _one_hot_loop(x, lambda t: _jvp_traced(of_x, (x,), (t,))[1], out)
    return tnp.reshape(tnp.transpose(columns), out.shape + x.shape)


def _one_hot_loop(basis_of: Tracer, apply: Callable[[Tracer], Tracer],
                  result_like: Tracer) -> Tracer:
    """Rows ``apply(e_k)`` for every one-hot ``e_k`` shaped like ``basis_of``,
    computed in one compiled loop: shape (basis_of.size, result_like.size)."""
    n, m = basis_of.size, result_like.size
    dtype = _float_dtype(basis_of)

    def row(k, table):
        e = tnp.full_value((n,), 0.0, dtype)
        e[k] = 1.0
        table[k] = tnp.reshape(apply(tnp.reshape(e, basis_of.shape)), (m,))
        return (table,)

    (table,) = loops.for_loop(0, n, 1, row, [tnp.full_value((n, m), 0.0,
                                                                   result_like.dtype)])
    return table
