"""Reverse mode on the recorded graph: vjp, grad and value_and_grad.

Differentiating a function means tracing it (its nodes are recorded in the
active trace), then walking those nodes backwards and recording each op's VJP
rule. Forward and backward nodes live in one graph, which jit optimises,
fuses and compiles like any other; differentiating again walks the backward
nodes too (grad of grad).

Outside a trace, ``grad(f)`` is compiled with ``jit`` and cached per shape.
Control flow (cond, for and while loops from the AST frontend) differentiates
through REGION_VJP_RULES (autodiff/control_flow.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np

from jitaic import serialize
from jitaic.autodiff import decomposition_rules  # noqa: F401  (registers its VJP rules)
from jitaic.autodiff.control_flow import REGION_VJP_RULES, recording_for_differentiation
from jitaic.autodiff.vjp_rules import (
    COMPLEX_RULES,
    NON_DIFFERENTIABLE,
    VJP_RULES,
    add_cotangents,
    is_differentiable,
    is_slice_of_zeros,
    summed_where_stretched,
)
from jitaic.errors import CompileError, JitaicError, UnsupportedError, at, located_at
from jitaic.ir import ops
from jitaic.ir.graph import GraphTooLarge, Node, Value
from jitaic.scale import has_dask_arrays
from jitaic.tracer import numpy as tnp
from jitaic.tracer.core import Tracer, current, emit, is_tracing, new_tracer, traced_shape
from jitaic.tracer.numpy_proxy import traceable
from jitaic.tracer.trace import flatten, unflatten


def _recorded(fn: Callable, *args, **kwargs) -> tuple[object, list[Node]]:
    """Call ``fn`` in the active trace; return its result and the nodes it added
    (a VJP built meanwhile, by a grad inside ``fn``, will be differentiated)."""
    block = current().builder._blocks[-1]
    start = len(block)
    with recording_for_differentiation():
        out = traceable(fn)(*args, **kwargs)
        for leaf in flatten(out)[0]:
            if isinstance(leaf, Tracer):
                leaf.value  # noqa: B018  a view emits its nodes when first read: here
    return out, list(block[start:])


def backpropagate(nodes: Sequence[Node], seeds: dict[int, Tracer],
                  saved: dict[int, Value] | None = None) -> dict[int, Tracer]:
    """Cotangents of every value the seeds depend on, keyed by ``id(Value)``.

    ``saved`` maps node outputs to equal values computed elsewhere (a loop's
    saved state) that later nodes read instead: rules read the saved value,
    and cotangents that reached it count for the output, so the node itself
    may become dead code.
    """
    cotangents: dict[int, list[Tracer]] = {k: [g] for k, g in seeds.items()}
    saved = saved or {}
    for node in reversed(nodes):
        outs = [_cotangent_of(v, cotangents, saved) for v in node.outputs]
        if all(g is None for g in outs):
            continue
        if node.op in NON_DIFFERENTIABLE:
            continue
        _check_complex_rule(node)
        with located_at(node.loc):  # the backward nodes carry the forward node's line
            for v, grad in _input_cotangents(node, outs, saved):
                _accumulate(cotangents, v, grad)
    return {k: _summed(parts) for k, parts in cotangents.items()}


def _check_complex_rule(node: Node) -> None:
    if node.op in COMPLEX_RULES or node.op in REGION_VJP_RULES:
        return
    if any(v.dtype.kind == "c" for v in (*node.inputs, *node.outputs)):
        raise UnsupportedError(f"gradients through complex values of {node.op.name} are "
                               f"not supported yet{at(node.loc)}")


def _input_cotangents(node: Node, outs: list[Tracer | None],
                      saved: dict[int, Value]) -> list[tuple[Value, object]]:
    """(input, its cotangent) pairs from one node's VJP rule."""
    if node.op in REGION_VJP_RULES:
        return list(REGION_VJP_RULES[node.op](node, outs, backpropagate))
    rule = VJP_RULES.get(node.op)
    if rule is None:
        raise UnsupportedError(f"jitaic cannot differentiate {node.op.name} yet"
                               f"{at(node.loc)}")
    inputs = [new_tracer(v, scalar=False) for v in node.inputs]
    (g,) = outs
    grads = rule(node, g, *inputs,
                 new_tracer(saved.get(id(node.output), node.output), scalar=False))
    return [(v, grad) for v, grad in zip(node.inputs, grads, strict=True)
            if grad is not None and is_differentiable(v.dtype)]


def _cotangent_of(v: Value, cotangents: dict[int, list[Tracer]],
                  saved: dict[int, Value]) -> Tracer | None:
    """The sum of what reached ``v`` (and its saved copy), once every reader
    of ``v`` has contributed."""
    copy = saved.get(id(v))
    parts = cotangents.get(id(v), []) + (cotangents.get(id(copy), []) if copy is not None
                                         else [])
    if not parts:
        return None
    total = _summed(parts)
    cotangents[id(v)] = [total]
    return total


def _summed(parts: list[Tracer]) -> Tracer:
    """Whole cotangents first, then the ones that are zero but for a slice,
    each added into the total's slice: contributions arrive in reverse
    program order, and a row read after a whole use must not make the sum
    a full-size add."""
    sliced = [g for g in parts if is_slice_of_zeros(g)]
    whole = [g for g in parts if not is_slice_of_zeros(g)]
    ordered = whole + sliced
    total = ordered[0]
    for g in ordered[1:]:
        total = add_cotangents(total, g)
    return total


def _accumulate(cotangents: dict[int, list[Tracer]], v: Value, grad: object) -> None:
    grad = tnp.as_tracer(grad)
    if _known_zero(grad):  # adds nothing, and 0 times an inf or NaN derivative is no 0
        return
    if grad.dtype.kind == "c" and v.dtype.kind != "c":
        grad = tnp.as_tracer(np.real(grad))  # Re(g * dx) of a real x: Re(g) is its cotangent
    if grad.dtype != v.dtype:
        grad = tnp.astype(grad, v.dtype)
    if grad.ndim == v.type.ndim and grad.shape != v.shape:
        grad = _to_run_time_lengths(grad, v)
    if grad.shape != v.shape:
        grad = tnp.broadcast_to(grad, v.shape)
    cotangents.setdefault(id(v), []).append(grad)


def _to_run_time_lengths(g: Tracer, v: Value) -> Tracer:
    """The cotangent of ``v`` from one of static length on an axis where
    ``v``'s length is known at run time only (an if joined two lengths, and
    the result met that many elements): it is that length, or 1 and stretched."""
    axes = [axis for axis, (length, n) in enumerate(zip(v.type.shape, g.shape, strict=True))
            if length is None and n is not None]
    return summed_where_stretched(g, new_tracer(v), axes)


def _known_zero(g: Tracer) -> bool:
    """Whether the cotangent ``g`` is zero whatever the inputs' values."""
    return _zero_value(g.value)


def _zero_value(v: Value) -> bool:
    """Zeros: a fill or constant, a sum, broadcast or reshape of zeros, or
    the read of a region a store of zeros has just cleared (the cotangent of
    a value a later store overwrote: ``x[i] = a; x[i] = b``)."""
    node = v.producer
    if node is None:
        return False
    if node.op is ops.full:
        return node.attrs["fill"] == 0
    if node.op is ops.constant:
        return not np.any(node.attrs["value"])
    if node.op in _ZEROS_TO_ZEROS:
        return _zero_value(node.inputs[0])
    store = node.inputs[0].producer if node.op in ops.STORE_OF_READ else None
    return (store is not None and store.op is ops.STORE_OF_READ[node.op]
            and ops.same_region(store, node) and _zero_value(store.inputs[1]))


_ZEROS_TO_ZEROS = (ops.reduce_sum, ops.broadcast_to, ops.reshape, ops.transpose, ops.astype)


def _differentiable_leaf(x: object, argnum: int, holomorphic: bool = False) -> Tracer:
    """A fresh traced value standing for one leaf we differentiate with respect to."""
    t = tnp.as_tracer(x)
    if not is_differentiable(t.dtype):
        raise TypeError(f"grad requires float or complex inputs, but argument {argnum} has "
                        f"a leaf of dtype {t.dtype}; integer and boolean values are not "
                        f"differentiable")
    if holomorphic and t.dtype.kind != "c":
        raise TypeError(f"grad with holomorphic=True requires complex inputs, but argument "
                        f"{argnum} has a leaf of dtype {t.dtype}")
    # A distinct value per leaf, even when the caller passes one array twice.
    return emit(ops.positive, [t], scalar=t._scalar)


def _gradients(cotangents: dict, tree: tuple, fresh: list[Tracer],
               values: list[Value]) -> object:
    """The cotangents of one argument's leaves (zeros where nothing flowed)."""
    leaves = []
    for t, v in zip(fresh, values, strict=True):
        g = cotangents.get(id(v))
        g = _zeros_like(t) if g is None else g
        # A scalar in (Python float, NumPy scalar) gives a scalar gradient out.
        leaves.append(new_tracer(g.value, scalar=t._scalar) if g._scalar != t._scalar else g)
    return unflatten(tree, leaves)


def _zeros_like(t: Tracer) -> Tracer:
    return tnp.full_value(traced_shape(t), 0.0, t.dtype)


def _normalize_argnums(argnums) -> tuple[tuple[int, ...], bool]:
    if isinstance(argnums, int):
        return (argnums,), False
    return tuple(argnums), True


def value_and_grad_traced(fn: Callable, argnums, has_aux: bool, args: tuple,
                          kwargs: dict, holomorphic: bool = False) -> tuple:
    """value_and_grad inside an active trace: records forward and backward ops."""
    nums, as_tuple = _normalize_argnums(argnums)
    args = list(args)
    wrt: list[tuple[tuple, list[Tracer], list[Value]]] = []
    for i in nums:
        if i >= len(args):
            raise TypeError(f"argnums {i} is out of range for {len(args)} positional "
                            f"arguments")
        leaves, tree = flatten(args[i])
        fresh = [_differentiable_leaf(x, i, holomorphic) for x in leaves]
        wrt.append((tree, fresh, [t.value for t in fresh]))
        args[i] = unflatten(tree, fresh)
    out, nodes = _recorded(fn, *args, **kwargs)
    value, aux = out if has_aux else (out, None)
    value = tnp.as_tracer(value)
    _check_scalar_output(value, holomorphic)
    producer = value.value.producer
    with located_at(producer.loc if producer is not None else None):
        seed = tnp.full_value((), 1.0, value.dtype)  # a constant: the value may be dead
    try:
        cotangents = backpropagate(nodes, {id(value.value): seed})
    except (JitaicError, GraphTooLarge):  # (auto mode's budget: it tries the AST frontend)
        raise
    except Exception as exc:  # not the user's: the forward pass traced without error
        raise CompileError(f"internal error while differentiating "
                           f"{getattr(fn, '__name__', 'the function')!r} (a jitaic bug; "
                           f"please report it): {type(exc).__name__}: {exc}") from exc
    grads = tuple(_gradients(cotangents, tree, fresh, values) for tree, fresh, values in wrt)
    grads = grads if as_tuple else grads[0]
    return ((value, aux), grads) if has_aux else (value, grads)


def _check_scalar_output(value: Tracer, holomorphic: bool) -> None:
    if value.ndim != 0 or value.dtype.kind not in "fc":
        raise TypeError(f"grad requires a scalar float output, got shape {value.shape} "
                        f"and dtype {value.dtype} (use jitaic.vjp for other outputs)")
    if value.dtype.kind == "c" and not holomorphic:
        raise TypeError(f"grad requires a real-valued output, got {value.dtype}: pass "
                        f"holomorphic=True to differentiate a holomorphic function, or use "
                        f"jitaic.vjp with a complex cotangent")
    if value.dtype.kind != "c" and holomorphic:
        raise TypeError(f"grad with holomorphic=True requires a complex output, got "
                        f"{value.dtype}")


class _Transformed:
    """A transformed function: traced inline inside jit, compiled and cached outside."""

    traced_only = True  # means nothing run as plain Python (jit's background compile)

    def __init__(self, fn: Callable, traced: Callable, recipe: tuple) -> None:
        functools.update_wrapper(self, fn)
        self._traced = traced
        self._compiled = None
        self._on_dask = None
        self._recipe = recipe  # (transformation, its arguments after fn): for pickling

    def __reduce__(self) -> tuple:
        transform, options = self._recipe
        return transform, (serialize.portable(self.__wrapped__), *options)

    def __call__(self, *args, **kwargs):
        if is_tracing():
            return self._traced(*args, **kwargs)
        if has_dask_arrays(args, kwargs):  # jit of the transform reads its recipe
            from jitaic.api import jit

            if self._on_dask is None:
                self._on_dask = jit(self)
            return self._on_dask(*args, **kwargs)
        if self._compiled is None:
            from jitaic.api import jit  # the API builds on autodiff, not the reverse

            def compiled(*args, **kwargs):
                return self._traced(*args, **kwargs)

            compiled.__name__ = getattr(self, "__name__", "grad")
            compiled.traced_only = True
            self._compiled = jit(compiled)
        return self._compiled(*args, **kwargs)

    def cache_info(self):
        return self._compiled.cache_info() if self._compiled else None

    def lower(self, *args, **kwargs):
        if self._compiled is None:
            self(*args, **kwargs)
        return self._compiled.lower(*args, **kwargs)


def value_and_grad(fn: Callable, argnums=0, has_aux: bool = False,
                   holomorphic: bool = False) -> Callable:
    """``(value, gradient)`` of a scalar function; gradients mirror the argument pytrees."""
    return _Transformed(fn, lambda *a, **k: value_and_grad_traced(fn, argnums, has_aux, a, k,
                                                                  holomorphic),
                        (value_and_grad, (argnums, has_aux, holomorphic)))


def grad(fn: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False) -> Callable:
    """The gradient of a scalar function with respect to ``argnums``.

    Of a real-valued function of complex arguments ``z = x + iy``, the gradient
    is ``dL/dx - 1j * dL/dy`` (JAX's convention; its conjugate is the direction
    of steepest ascent). ``holomorphic=True`` differentiates a holomorphic
    function of complex arguments with a complex output: the gradient is its
    complex derivative.
    """
    def traced(*args, **kwargs):
        out = value_and_grad_traced(fn, argnums, has_aux, args, kwargs, holomorphic)
        return (out[1], out[0][1]) if has_aux else out[1]

    return _Transformed(fn, traced, (grad, (argnums, has_aux, holomorphic)))


def vjp(fn: Callable, *primals) -> tuple[object, Callable]:
    """``fn(*primals)`` and a function mapping output cotangents to input cotangents."""
    if is_tracing():
        return _vjp_traced(fn, primals)

    from jitaic.api import jit

    def cotangents_of(primals, cotangent):
        out, backward = _vjp_traced(fn, primals)
        return backward(cotangent)

    out = jit(fn)(*primals)
    return out, functools.partial(jit(cotangents_of), primals)


def _vjp_traced(fn: Callable, primals: tuple) -> tuple[object, Callable]:
    wrt = []
    args = []
    for i, p in enumerate(primals):
        leaves, tree = flatten(p)
        fresh = [_differentiable_leaf(x, i) for x in leaves]
        wrt.append((tree, fresh, [t.value for t in fresh]))
        args.append(unflatten(tree, fresh))
    out, nodes = _recorded(fn, *args)

    def backward(cotangent):
        out_leaves, _ = flatten(out)
        ct_leaves, _ = flatten(cotangent)
        seeds = {}
        for o, c in zip(out_leaves, ct_leaves, strict=True):
            o = tnp.as_tracer(o)
            seeds[id(o.value)] = tnp.astype(tnp.broadcast_to(c, o.shape), o.dtype)
        cotangents = backpropagate(nodes, seeds)
        return tuple(_gradients(cotangents, *w) for w in wrt)

    return out, backward


__all__ = ["backpropagate", "grad", "value_and_grad", "vjp"]
