"""trace(): run a function on Tracers and return its Graph.

Arguments are pytrees (tuples, lists, dicts) whose leaves are classified once:
arrays and NumPy scalars are traced by shape/dtype/layout, Python floats are
traced as weak float64 scalars, Python ints/bools/None/strings are static.
The classification is also the cache key (see ``leaf_key``).
"""

from __future__ import annotations

import enum
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from jitaic.errors import UnsupportedError, at, recursion_error, user_location
from jitaic.ir import ops
from jitaic.ir.graph import Graph, Node, Value
from jitaic.ir.types import SUPPORTED_DTYPES, SUPPORTED_TEXT, TensorType
from jitaic.tracer.control_flow import numpys_error, raise_when_run
from jitaic.tracer.core import TraceContext, Tracer, new_tracer
from jitaic.tracer.numpy.generators import TracedGenerator
from jitaic.tracer.numpy_proxy import Converter

# ---------------------------------------------------------------- pytrees
# A treedef is a hashable nested tuple: ("*",) is a leaf.

LEAF = ("*",)


def flatten(obj: object) -> tuple[list, tuple]:
    leaves: list = []
    return leaves, _flatten(obj, leaves)


def _flatten(obj: object, leaves: list) -> tuple:
    if isinstance(obj, (tuple, list)):
        kind = type(obj) if type(obj) not in (tuple, list) else type(obj).__name__
        return (kind, tuple(_flatten(o, leaves) for o in obj))
    if isinstance(obj, dict):
        keys = tuple(obj)
        return ("dict", keys, tuple(_flatten(obj[k], leaves) for k in keys))
    leaves.append(obj)
    return LEAF


def unflatten(treedef: tuple, leaves: Sequence) -> object:
    it = iter(leaves)
    return _unflatten(treedef, it)


def _unflatten(treedef: tuple, it) -> object:
    if treedef == LEAF:
        return next(it)
    if treedef[0] == "dict":
        return {k: _unflatten(t, it) for k, t in zip(treedef[1], treedef[2], strict=True)}
    children = [_unflatten(t, it) for t in treedef[1]]
    if treedef[0] == "list":
        return children
    if treedef[0] == "tuple":
        return tuple(children)
    return treedef[0](*children)  # namedtuple


# ---------------------------------------------------------------- leaves

# ndarray subclasses compiled as plain arrays: a memmap is one (file-backed
# storage); others (masked arrays, np.matrix, unit-carrying arrays) change what
# operators mean, and are rejected rather than silently stripped.
PLAIN_ARRAY_TYPES = frozenset({np.ndarray, np.memmap})


def array_key(x: np.ndarray) -> tuple:
    """Shape, dtype, layout (C, F or any) and writeability: numba's array type."""
    flags = x.flags
    layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
    return ("array", x.shape, x.dtype, layout, flags.writeable)


def leaf_key(x: object) -> tuple:
    """What a compiled specialisation depends on for one argument leaf."""
    if type(x) in PLAIN_ARRAY_TYPES:
        return array_key(x)
    if isinstance(x, np.ndarray):
        return ("array subclass", type(x))  # rejected by check_leaf
    if isinstance(x, np.generic):
        return ("scalar", x.dtype)
    if isinstance(x, float):
        return ("float",)
    if isinstance(x, complex):
        return ("complex",)
    if isinstance(x, np.random.Generator):  # its state is read when the code runs
        return ("generator",)
    return ("static", type(x), x)


def check_leaf(x: object, name: str) -> None:
    """Reject argument leaves jitaic cannot compile, naming the argument."""
    if isinstance(x, np.ndarray) and type(x) not in PLAIN_ARRAY_TYPES:
        kind = type(x)
        raise UnsupportedError(
            f"argument {name!r} is a {kind.__module__}.{kind.__qualname__}, a subclass of "
            f"numpy.ndarray whose operations may mean something else (a mask, matrix "
            f"products, units): jitaic compiles plain arrays; pass np.asarray({name}) "
            f"(or its .filled() data for a masked array)")
    if isinstance(x, (np.ndarray, np.generic)):
        if x.dtype not in SUPPORTED_DTYPES:
            raise UnsupportedError(
                f"argument {name!r} has dtype {x.dtype}, which jitaic does not support "
                f"(supported: {SUPPORTED_TEXT})")
    elif not isinstance(x, (bool, int, float, complex, str, type(None), np.dtype, type,
                            np.random.Generator)) and not is_static_object(x):
        raise UnsupportedError(
            f"argument {name!r} of type {type(x).__name__} is not supported: pass arrays, "
            f"Python scalars, or tuples/lists/dicts of them (or mark it static with "
            f"static_argnums/static_argnames if it is hashable)")


def is_static_object(x: object) -> bool:
    """Functions (``mode=wrap``), enum members and other hashable callables
    are static arguments by themselves: each one compiles its own code."""
    if not (callable(x) or isinstance(x, enum.Enum)):
        return False
    try:
        hash(x)
    except TypeError:
        return False
    return True


def is_traced(key: tuple) -> bool:
    return key[0] not in ("static", "alias")


def leaf_type(x: object) -> TensorType:
    if isinstance(x, np.random.Generator):
        return ops.GENERATOR
    if isinstance(x, float) and not isinstance(x, np.generic):
        return TensorType((), np.float64, weak=True)
    if isinstance(x, complex) and not isinstance(x, np.generic):
        return TensorType((), np.complex128, weak=True)
    return TensorType(np.shape(x), x.dtype)


# ---------------------------------------------------------------- trace

@dataclass
class Traced:
    """A traced function: its graph and how to rebuild the Python result."""

    graph: Graph
    out_tree: tuple
    # One entry per output leaf: ("result", i, as_scalar, argument, kind) or
    # ("static", value); ``argument`` is the index of the array argument returned
    # as itself, ``kind`` that of a bool result saying whether a 0-d result is a
    # NumPy scalar, where that depends on the path an if took (else None).
    out_leaves: list[tuple]


def trace(fn: Callable, args: Sequence, kwargs: dict, arg_names: Sequence[str],
          static: Sequence[bool], static_kwargs: frozenset = frozenset(),
          converter: Converter | None = None, max_nodes: int | None = None) -> Traced:
    """Trace ``fn(*args, **kwargs)``.

    ``static[i]`` marks whole positional arguments, ``static_kwargs`` keyword
    arguments; parameters are numbered positional first, then keywords sorted.
    Past ``max_nodes`` recorded nodes, tracing stops with GraphTooLarge.
    """
    with TraceContext() as ctx:
        ctx.builder.max_nodes = max_nodes
        params: list[Value] = []
        tracers: list[Tracer] = []
        seen: dict[int, Tracer] = {}  # the same array passed twice is one buffer

        def lift(x: object, name: str) -> object:
            key = leaf_key(x)
            if not is_traced(key):  # a function argument runs on Tracers too
                return ctx.converter.replace(x) if callable(x) else x
            if isinstance(x, np.ndarray) and id(x) in seen:
                return seen[id(x)]
            value = Value(leaf_type(x), name=name)
            if isinstance(x, np.random.Generator):
                params.append(value)
                return TracedGenerator.of_value(value)
            is_array = isinstance(x, np.ndarray)
            tracer = new_tracer(value, scalar=not is_array, param_index=len(params),
                                c_contiguous=not is_array or x.flags.c_contiguous)
            params.append(value)
            tracers.append(tracer)
            if isinstance(x, np.ndarray):
                seen[id(x)] = tracer
            return tracer

        def lift_tree(obj: object, name: str) -> object:
            leaves, treedef = flatten(obj)
            names = [name if treedef == LEAF else f"{name}{i}" for i in range(len(leaves))]
            return unflatten(treedef, [lift(x, n) for x, n in zip(leaves, names, strict=True)])

        ctx.converter = converter or Converter()
        traced_args = [a if s else lift_tree(a, n)
                       for a, n, s in zip(args, arg_names, static, strict=True)]
        traced_kwargs = {k: kwargs[k] if k in static_kwargs else lift_tree(kwargs[k], k)
                         for k in sorted(kwargs)}
        call = ctx.converter.convert(fn) if isinstance(fn, types.FunctionType) else fn
        try:
            out = call(*traced_args, **traced_kwargs)
        except RecursionError as exc:
            raise recursion_error(exc) from None
        except Exception as exc:
            if not (numpys_error(exc) and _may_raise_when_run(ctx.builder.nodes)):
                raise
            # NumPy raises a run-time error the code before may meet (an index
            # out of bounds) before this one: raise it where NumPy would
            raise_when_run(exc)
            out = None
        results, out_leaves = _collect_outputs(out)
        out_tree = flatten(out)[1]
        updates = {t._buffer.param_index: t._buffer.value for t in tracers
                   if t._buffer.version > 0}
        graph = Graph(tuple(params), ctx.builder.nodes, tuple(results),
                      name=getattr(fn, "__name__", "f"), updates=updates)
    return Traced(graph, out_tree, out_leaves)


def _may_raise_when_run(nodes: Sequence[Node]) -> bool:
    """Whether running ``nodes`` may raise (a run-time index, a check, an
    elementwise op broadcasting run-time lengths)."""
    return any(ops.EFFECTFUL in node.op.traits or node.op.may_raise(node) or
               (ops.ELEMENTWISE in node.op.traits
                and ops.checked_when_run(*{id(v): v.shape for v in node.inputs}.values())) or
               any(_may_raise_when_run(region.nodes) for region in node.regions)
               for node in nodes)


def _collect_outputs(out: object) -> tuple[list[Value], list[tuple]]:
    leaves, _ = flatten(out)
    results: list[Value] = []
    described = []
    for leaf in leaves:
        if isinstance(leaf, Tracer):
            # an array argument returned as itself (not a view): the caller's object
            argument = leaf._buffer.param_index if not leaf._view and not leaf._scalar \
                else None
            kind = len(results) + 1 if leaf._kind is not None and argument is None else None
            described.append(("result", len(results), leaf._scalar and leaf.ndim == 0,
                              argument, kind))
            results.append(leaf.value)
            if kind is not None:
                results.append(leaf._kind)
        elif isinstance(leaf, TracedGenerator):
            raise UnsupportedError(f"returning a Generator from a jitted function is not "
                                   f"supported{at(user_location())}: return its draws")
        else:
            described.append(("static", leaf))
    return results, described
