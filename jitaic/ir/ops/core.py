"""What an op is (``Op``), the table of all of them (``OPS``), traits and
the shape and axis rules every family of ops shares."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from jitaic.errors import ShapeError, UnsupportedError
from jitaic.ir.types import (
    SUPPORTED_DTYPES,
    SUPPORTED_TEXT,
    TensorType,
)

if TYPE_CHECKING:
    from jitaic.ir.graph import Node

# Traits are plain strings collected in sets, so rules can match a category.
ELEMENTWISE = "elementwise"
REDUCTION = "reduction"
COMMUTATIVE = "commutative"
# the result may share its first input's memory (a view, not a copy): writes
# to either show in the other, so stores and buffer reuse must know
VIEW = "view"
CONSTRUCTOR = "constructor"
EFFECTFUL = "effectful"  # never CSE'd or removed
# raises on some run-time values (an index out of bounds), as NumPy does even
# when the result goes unused: not removed at the top level of a function
# (passes/cleanup.py says why not in bodies), but CSE'd (same inputs, same error)
MAY_RAISE = "may_raise"
ALLOCATES = "allocates"  # a new buffer that later ops write in place: never CSE'd
HAS_REGION = "has_region"
CONTROL_FLOW = "control_flow"

InferRule = Callable[[Sequence[TensorType], Mapping[str, object], tuple], list[TensorType]]


@dataclass(frozen=True, eq=False)
class Op:
    name: str
    infer: InferRule
    reference: Callable[..., object]
    traits: frozenset[str] = frozenset()
    ufunc: np.ufunc | None = None  # the ufunc an elementwise op computes
    # Reductions: the binary ufunc they fold with, and its identity (the
    # result over no elements, and the fill for masked-out ones); None where
    # the ufunc has none (max, min), which makes empty reductions an error.
    combine: np.ufunc | None = None
    identity: object = None
    # Computes NumPy's values on complex operands too (its lowering, its
    # reference and the tracer's handlers do); any other op refuses them.
    complex: bool = False
    # A MAY_RAISE op that raises for some operands only: whether a node may
    # (an unread node that cannot raise is dead code). None: any node may.
    raises: Callable[[Node], bool] | None = None

    def __repr__(self) -> str:
        return f"<op {self.name}>"

    def may_raise(self, node: Node) -> bool:
        return MAY_RAISE in self.traits and (self.raises is None or self.raises(node))

    def check_complex(self, types: Sequence[TensorType]) -> None:
        """Refuse complex operands or results where the op does not compute them."""
        if not self.complex and any(t.dtype.kind == "c" for t in types):
            name = self.ufunc.__name__ if self.ufunc is not None else self.name
            raise UnsupportedError(f"{name} of complex values is not supported yet")


def attrs_key(attrs: Mapping[str, object]) -> tuple:
    """A hashable stand-in for a node's attributes (arrays by content, -0.0
    apart from 0.0): nodes of one op with equal keys compute alike."""
    return tuple(sorted((k, _freeze(v)) for k, v in attrs.items()))


def _freeze(value: object) -> object:
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, float | np.floating):
        return (type(value), float(value).hex())
    return (type(value), value)


def computes_same(a, b, depth: int = 3) -> bool:
    """Whether two graph values are one, or the same op with the same
    attributes on operands that compute the same (no effect, no fresh
    buffer, no body): what CSE merges, known before it runs. A trace that
    reads ``k[0]`` twice (``y[k[0]] = a; y[k[0]] = b``) has two such reads
    when a gradient is built from it."""
    if a is b:
        return True
    p, q = a.producer, b.producer
    return (depth > 0 and p is not None and q is not None and p.op is q.op
            and a.index == b.index and not p.regions and not q.regions
            and not p.op.traits & {EFFECTFUL, ALLOCATES}
            and len(p.inputs) == len(q.inputs)
            and all(computes_same(x, y, depth - 1) for x, y in zip(p.inputs, q.inputs))
            and attrs_key(p.attrs) == attrs_key(q.attrs))


OPS: dict[str, Op] = {}


def _register(op: Op) -> Op:
    if op.name in OPS:
        raise ValueError(f"op {op.name!r} registered twice")
    OPS[op.name] = op
    return op


def define(name: str, infer: InferRule, reference, traits=(), ufunc=None, **facts) -> Op:
    return _register(Op(name, infer, reference, frozenset(traits), ufunc, **facts))


def registrar(table: dict, what: str) -> Callable:
    """A decorator factory filling one concern's op-keyed table (lowering rules,
    VJP rules, ...): ``@rule(op1, op2)``; registering an op twice is an error."""

    def rule(*op_list: Op) -> Callable:
        def register(fn):
            for op in op_list:
                if op in table:
                    raise ValueError(f"{what} for {op.name} registered twice")
                table[op] = fn
            return fn

        return register

    return rule


# ---------------------------------------------------------------- shape helpers

def broadcast_shapes(*shapes: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """NumPy's broadcasting; a run-time extent (None) meets n > 1 as n and 1 as
    itself (the lowering checks at run time that it equals what it meets, or
    is 1 and stretches)."""
    try:
        if all(None not in s for s in shapes):
            return tuple(np.broadcast_shapes(*shapes))
        ndim = max(len(s) for s in shapes)
        padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
        return tuple(_broadcast_dim(column) for column in zip(*padded, strict=True))
    except ValueError:
        listed = " ".join(str(tuple(s)) for s in shapes)
        raise ShapeError(
            f"operands could not be broadcast together with shapes {listed}"
        ) from None


def _broadcast_dim(dims: tuple[int | None, ...]) -> int | None:
    static = {d for d in dims if d is not None and d != 1}
    if len(static) > 1:
        raise ValueError("mismatch")
    if static:
        return static.pop()
    return None if None in dims else 1


def memory_root(value):
    """The value whose buffer ``value`` views (itself when it is no view)."""
    while value.producer is not None and VIEW in value.producer.op.traits:
        value = value.producer.inputs[0]
    return value


def checked_when_run(*shapes: tuple[int | None, ...]) -> bool:
    """Whether broadcasting operands of these shapes (distinct values) is
    checked when it runs, and may raise there: a run-time extent meets an
    extent other than 1 (a static n, or another run-time extent)."""
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    return any(None in column and sum(d != 1 for d in column) > 1
               for column in zip(*padded, strict=True))


def fits(v: tuple[int | None, ...], target: tuple[int | None, ...],
         checked_when_run: bool = False) -> bool:
    """Whether an array of shape ``v`` broadcasts into ``target`` (assignment).
    With ``checked_when_run``, a run-time extent of the target takes any
    static extent of ``v``, and a target's 1 a run-time extent of ``v``: the
    store checks that they agree (or that v's is 1) when it runs."""
    try:
        out = broadcast_shapes(v, target)
    except ShapeError:
        return False
    return len(v) <= len(target) and all(
        o == t or (checked_when_run and (t is None or (o is None and t == 1)))
        for o, t in zip(out, target, strict=True))


def check_static(t: TensorType, what: str, where: str = "") -> None:
    """Ops that need every extent at compile time reject run-time extents."""
    if not t.static:
        raise UnsupportedError(f"{what} of an array whose length is only known at run "
                               f"time ({t}: a slice like x[:i] with a traced bound) is "
                               f"not supported{where}")


def normalize_axes(axes, ndim: int) -> tuple[int, ...]:
    """Axis None/int/tuple -> sorted tuple of non-negative axes, NumPy's errors."""
    if axes is None:
        return tuple(range(ndim))
    if isinstance(axes, (int, np.integer)):
        axes = (axes,)
    out = []
    for a in axes:
        a = int(a)
        if a not in (0, -1) if ndim == 0 else not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim)
        out.append(a % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(out))


def check_dtype(dtype: np.dtype, opname: str) -> np.dtype:
    if np.dtype(dtype) not in SUPPORTED_DTYPES:
        raise UnsupportedError(
            f"{opname} would produce dtype {np.dtype(dtype)}, which jitaic does not "
            f"support (supported: {SUPPORTED_TEXT})"
        )
    return np.dtype(dtype)


