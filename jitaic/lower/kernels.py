"""Lowering rules: one registry keyed by op.

Elementwise ops lower through ``SCALAR_RULES`` (the scalar expression of one
element) into a ``LoopNest`` (an iteration space, loads with broadcasting,
scalar statements, stores). Fusion grows one LoopNest over many elementwise
nodes; here every elementwise node is its own nest. Every other op has an
entry in ``LOWERINGS`` that writes its statements into the Emitter.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from jitaic import config
from jitaic.errors import CompileError, at
from jitaic.ir import ops
from jitaic.ir.graph import Node, Value
from jitaic.ir.ops import Op, slice_shape, ufunc_loop_dtypes
from jitaic.lower import blas, runtime
from jitaic.lower.codegen import (
    Emitter,
    Extent,
    cast,
    empty,
    index_text,
    known_size,
    literal,
    np_type,
    shape_text,
)
from jitaic.lower.vecmath import VECTOR_MATH

# ---------------------------------------------------------------- scalar rules
# rule(args, in_dtypes, node) -> expression; args are already cast to the
# op's loop dtypes. The caller casts the expression to the output dtype.

ScalarRule = Callable[[Sequence[str], Sequence[np.dtype], Node], str]
SCALAR_RULES: dict[Op, ScalarRule] = {}


scalar_rule = ops.registrar(SCALAR_RULES, "scalar rule")


def _infix(symbol: str) -> ScalarRule:
    return lambda a, dt, node: f"({a[0]} {symbol} {a[1]})"


def _call(fn: str) -> ScalarRule:
    return lambda a, dt, node: f"{fn}({', '.join(a)})"


def _is_float(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f"


for _op, _sym in [(ops.add, "+"), (ops.subtract, "-"), (ops.multiply, "*"),
                  (ops.true_divide, "/"), (ops.mod, "%"),
                  (ops.equal, "=="), (ops.not_equal, "!="),
                  (ops.less, "<"), (ops.less_equal, "<="), (ops.greater, ">"),
                  (ops.greater_equal, ">="), (ops.bitwise_and, "&"),
                  (ops.bitwise_or, "|"), (ops.bitwise_xor, "^")]:
    scalar_rule(_op)(_infix(_sym))


@scalar_rule(ops.floor_divide)
def _floor_divide(a, dt, node):
    # NumPy: the smallest integer // -1 wraps to itself (numba returns 0).
    if np.dtype(dt[0]).kind == "i":
        return f"((-{a[0]}) if {a[1]} == -1 else ({a[0]} // {a[1]}))"
    return f"({a[0]} // {a[1]})"


def _shift(symbol: str) -> ScalarRule:
    """NumPy's shifts by a count outside [0, bits): 0, or -1 shifting a negative
    number right (C leaves them undefined; LLVM makes them poison). The
    fallbacks are written in the operand's own type (numba unifies uint64
    with an int literal to float64)."""
    def rule(a, dt, node):
        x, count = a
        bits = np.dtype(dt[0]).itemsize * 8
        if symbol == ">>" and np.dtype(dt[0]).kind == "i":
            beyond = f"({x} >> {bits - 1})"  # -1 for negative x, else 0
        else:
            beyond = f"({x} ^ {x})"
        return f"(({x} {symbol} {count}) if 0 <= {count} < {bits} else {beyond})"

    return rule


scalar_rule(ops.left_shift)(_shift("<<"))
scalar_rule(ops.right_shift)(_shift(">>"))

def _vector_math(name: str, libm: ScalarRule) -> ScalarRule:
    """exp/log/pow/... through jitaic.lower.vecmath (LLVM vectorises loops calling
    it; scalar libm calls stop vectorisation) for float loops, else the libm
    rule; config exact_math asks for libm everywhere."""
    def rule(a, dt, node):
        fn = VECTOR_MATH[name].get(np.dtype(dt[0]))
        if fn is None or config.get("exact_math"):
            return libm(a, dt, node)
        return f"vm.{fn.__name__}({', '.join(a)})"

    return rule


for _op in (ops.exp, ops.expm1, ops.log, ops.log1p, ops.tanh, ops.sin, ops.cos,
            ops.arctan, ops.arctan2, ops.arcsin, ops.arccos):
    scalar_rule(_op)(_vector_math(_op.name, _call(f"np.{_op.name}")))
_power = _vector_math("power", _infix("**"))


@scalar_rule(ops.power)
def _power_of_array(a, dt, node):
    """NumPy's power loop takes the square root for an exponent of 0.5 that is
    the same for every element of an array (sqrt and pow differ at -0.0 and
    -inf); a NumPy scalar base goes through C's pow."""
    x, exponent = node.inputs
    if _is_float(dt[0]) and exponent.type.ndim == 0 and node.output.type.ndim:
        return f"(np.sqrt({a[0]}) if {a[1]} == 0.5 else {_power(a, dt, node)})"
    if np.dtype(dt[0]) == np.uint64:
        return f"rt.uint64_power({a[0]}, {a[1]})"
    return _power(a, dt, node)

for _op, _fn in [(ops.exp2, "np.exp2"),
                 (ops.log2, "np.log2"), (ops.log10, "np.log10"),
                 (ops.sqrt, "np.sqrt"), (ops.cbrt, "np.cbrt"),
                 (ops.tan, "np.tan"),
                 (ops.sinh, "np.sinh"), (ops.cosh, "np.cosh"),
                 (ops.arcsinh, "np.arcsinh"),
                 (ops.arccosh, "np.arccosh"), (ops.arctanh, "np.arctanh"),
                 (ops.floor, "np.floor"), (ops.ceil, "np.ceil"), (ops.trunc, "np.trunc"),
                 (ops.rint, "np.rint"),
                 (ops.hypot, "np.hypot"), (ops.copysign, "np.copysign"),
                 (ops.signbit, "np.signbit"), (ops.absolute, "abs"), (ops.fabs, "abs")]:
    scalar_rule(_op)(_call(_fn))


def _times_ones_value(op: Op) -> ScalarRule:
    """deg2rad and rad2deg multiply by a constant: NumPy's own, its value at 1
    in the loop dtype (pi/180 rounded once, as NumPy's C does)."""
    def rule(a, dt, node):
        return f"({a[0]} * {literal(op.ufunc(np.ones((), dt[0])), dt[0])})"

    return rule


for _op in (ops.deg2rad, ops.rad2deg):
    scalar_rule(_op)(_times_ones_value(_op))

scalar_rule(ops.negative)(lambda a, dt, node: f"(-{a[0]})")
scalar_rule(ops.positive)(lambda a, dt, node: a[0])
scalar_rule(ops.square)(lambda a, dt, node: f"({a[0]} * {a[0]})")


def _truth(expr: str, dtype: np.dtype) -> str:
    """NumPy's logical ops loop over numbers too: non-zero (and NaN) is true."""
    return expr if dtype == np.bool_ else f"({expr} != 0)"


scalar_rule(ops.logical_not)(lambda a, dt, node: f"(not {_truth(a[0], dt[0])})")
scalar_rule(ops.logical_and)(
    lambda a, dt, node: f"({_truth(a[0], dt[0])} and {_truth(a[1], dt[1])})")
scalar_rule(ops.logical_or)(
    lambda a, dt, node: f"({_truth(a[0], dt[0])} or {_truth(a[1], dt[1])})")
scalar_rule(ops.logical_xor)(
    lambda a, dt, node: f"({_truth(a[0], dt[0])} != {_truth(a[1], dt[1])})")
scalar_rule(ops.invert)(
    lambda a, dt, node: f"(not {a[0]})" if dt[0] == np.bool_ else f"(~{a[0]})")


@scalar_rule(ops.reciprocal)
def _reciprocal(a, dt, node):
    # Integer reciprocal truncates toward zero like C (NumPy's int loop).
    return f"(1.0 / {a[0]})" if _is_float(dt[0]) else f"np.int64(1.0 / {a[0]})"


def _select(better: str, nan_wins: int) -> ScalarRule:
    """``a if (a better b, or operand nan_wins is NaN) else b``."""
    def rule(a, dt, node):
        n = a[nan_wins]
        return f"({a[0]} if ({a[0]} {better} {a[1]} or {n} != {n}) else {a[1]})"

    return rule


# NumPy's maximum/minimum propagate NaN and return the second operand on ties
# (so maximum(-0.0, 0.0) is 0.0); fmax/fmin prefer the non-NaN operand.
scalar_rule(ops.maximum)(_select(">", 0))
scalar_rule(ops.minimum)(_select("<", 0))
scalar_rule(ops.fmax)(_select(">", 1))
scalar_rule(ops.fmin)(_select("<", 1))


@scalar_rule(ops.sign)
def _sign(a, dt, node):
    x = a[0]
    zero = "0.0" if _is_float(dt[0]) else "0"
    nan_or_zero = f"({zero} if {x} == 0 else {x})"  # NaN stays NaN, -0.0 becomes 0.0
    return f"(1 if {x} > 0 else (-1 if {x} < 0 else {nan_or_zero}))"


@scalar_rule(ops.isnan)
def _isnan(a, dt, node):
    return f"({a[0]} != {a[0]})" if _is_float(dt[0]) else "False"


@scalar_rule(ops.isinf)
def _isinf(a, dt, node):
    return f"np.isinf({a[0]})" if _is_float(dt[0]) else "False"


@scalar_rule(ops.isfinite)
def _isfinite(a, dt, node):
    return f"np.isfinite({a[0]})" if _is_float(dt[0]) else "True"


scalar_rule(ops.where)(lambda a, dt, node: f"({a[1]} if {a[0]} else {a[2]})")
scalar_rule(ops.broadcast_like)(lambda a, dt, node: a[0])
scalar_rule(ops.astype)(lambda a, dt, node: cast(a[0], dt[0], node.output.dtype))


def loop_dtypes(node: Node) -> tuple[np.dtype, ...]:
    """The dtypes an elementwise op computes in, one per input."""
    op = node.op
    if op.ufunc is not None:
        return tuple(ufunc_loop_dtypes(op.ufunc, [v.type for v in node.inputs])[:-1])
    if op is ops.where:
        out = node.output.dtype
        return (np.dtype(bool), out, out)
    return tuple(v.dtype for v in node.inputs)  # astype casts on the way out


def scalar_expression(node: Node, args: Sequence[str]) -> str:
    """One element of an elementwise node, cast to its output dtype."""
    in_dtypes = loop_dtypes(node)
    cast_args = [cast(a, v.dtype, d) for a, v, d in zip(args, node.inputs, in_dtypes,
                                                          strict=True)]
    expr = SCALAR_RULES[node.op](cast_args, in_dtypes, node)
    return f"{np_type(node.output.dtype)}({expr})"


# ---------------------------------------------------------------- loop nests

# ---------------------------------------------------------------- run-time extents
# Inside loop bodies a dimension may be known at run time only (None in the
# type: x[:i]). Its extent in generated code is read off an array that exists
# (``name.shape[k]``); a value that is not stored (an element computed inside
# a fused kernel) takes the extent of the input it was computed from.


def extent(em: Emitter, v: Value, axis: int) -> Extent:
    """Axis ``axis`` of ``v``: its static length, or source text for it."""
    d = v.shape[axis]
    if d is not None:
        return d
    if em.has(v) and v.type.ndim:
        return f"{em(v)}.shape[{axis}]"
    node = v.producer
    if node is not None and node.op in SCALAR_RULES:  # elementwise: broadcast inputs
        back = v.type.ndim - axis
        for x in node.inputs:
            if x.type.ndim >= back and x.shape[x.type.ndim - back] is None:
                return extent(em, x, x.type.ndim - back)
    raise CompileError(f"no run-time extent for axis {axis} of {v.type} made by "
                       f"{node.op.name if node else 'a parameter'} (a jitaic bug)")


def dims(em: Emitter, v: Value) -> tuple[Extent, ...]:
    return tuple(extent(em, v, k) for k in range(v.type.ndim))


def check_extents(em: Emitter, v: Value, domain: tuple[Extent, ...], what: str) -> None:
    """Raise at run time where a run-time extent of ``v`` and the extent it is
    broadcast against differ (NumPy's broadcasting error; jitaic does not
    stretch a run-time extent that turns out to be 1)."""
    offset = len(domain) - v.type.ndim
    for k, d in enumerate(v.shape):
        target = domain[offset + k]
        if d == 1 or (d is not None and not isinstance(target, str)):
            continue
        mine = extent(em, v, k)
        if str(mine) != str(target):
            with em.block(f"if {mine} != {target}:"):
                em.line(f"raise rt.LengthsDiffer({what!r}, {mine}, {target})")


def check_index(em: Emitter, i: str, n: Extent, axis: int, loc: object) -> None:
    """Raise NumPy's IndexError, naming the user's line, where the run-time
    index ``i`` (negative ones count from the end) is outside an axis of ``n``."""
    # -n <= i < n as one unsigned compare (a wrapped i + n is huge)
    with em.block(f"if np.uint64({i} + {n}) >= np.uint64(2 * {n}):"):
        em.line(f"raise rt.IndexOutOfBounds({i}, {axis}, {n}, {at(loc)!r})")


@dataclass
class LoopNest:
    """A kernel: loops over ``domain`` running scalar statements, then stores.

    ``loads`` maps an array name to its index expression in the nest; the
    statements assign scalar temporaries; ``stores`` write named outputs.
    """

    domain: tuple[Extent, ...]
    index: tuple[str, ...]
    statements: list[str] = field(default_factory=list)
    stores: list[tuple[str, str]] = field(default_factory=list)  # (array, scalar expr)
    cost: int = 1  # of one element, in simple arithmetic ops (element_cost)
    order: tuple[int, ...] | None = None  # the loops' axes, outermost first (None: 0, 1, ...)

    def work(self) -> int | None:
        """Elements times their cost (for the parallel threshold); None at run time."""
        size = known_size(self.domain)
        return None if size is None else size * self.cost


# What one element of these ops costs next to a simple add or multiply (~0.3 ns
# a lane here), measured in vectorised loops (vecmath) or libm calls. The
# parallel threshold weighs a loop's elements by them: a tanh chain of 1e5
# elements is 0.5 ms of work on one core, far above a thread launch.
ELEMENT_COST = {ops.exp: 6, ops.expm1: 6, ops.log: 8, ops.log1p: 8, ops.tanh: 9,
                ops.power: 25, ops.sin: 15, ops.cos: 15, ops.tan: 20, ops.arcsin: 15,
                ops.arccos: 15, ops.arctan: 15, ops.arctan2: 20, ops.sinh: 15, ops.cosh: 15,
                ops.arcsinh: 20, ops.arccosh: 20, ops.arctanh: 20, ops.exp2: 15,
                ops.log2: 15, ops.log10: 15, ops.cbrt: 15}


def element_cost(nodes: Sequence[Node]) -> int:
    """The cost of one element of a loop running ``nodes`` (1 for plain arithmetic)."""
    return 1 + sum(ELEMENT_COST.get(n.op, 0) for n in nodes)


def load(em: Emitter, value: Value, nest: LoopNest, name: str | None = None) -> str:
    """The element of ``value`` (held in ``name``, default its own) at the nest's
    index, broadcasting size-1 dims. Elements of a slice view are read from the
    sliced array itself (``u[1 + i, j]``, not ``view[i, j]``): LLVM vectorises
    loads from a contiguous base, not through a strided view."""
    if value.type.ndim == 0:
        return name or em(value)
    offset = len(nest.domain) - value.type.ndim
    subs = ["0" if d == 1 else nest.index[offset + j] for j, d in enumerate(value.shape)]
    if name is None:
        value, subs = _through_views(em, value, subs)
        if value.type.ndim == 0:  # a broadcast scalar
            return em(value)
    return f"{name or em(value)}[{', '.join(subs)}]"


def _through_views(em: Emitter, value: Value, subs: list[str]) -> tuple[Value, list[str]]:
    """The array a chain of basic-index views reads from, and the subscripts
    there of the view's element at ``subs`` (views with run-time indices use
    the first indices their lowering normalised: ``em.view_starts``)."""
    node = value.producer
    while node is not None and (node.op is ops.broadcast_to or (
            node.op is ops.getitem and node.attrs["index"]) or (
            node.op is ops.dyn_getitem and id(value) in em.view_starts)):
        x = node.inputs[0]
        if node.op is ops.broadcast_to:  # right-aligned; x's size-1 dims read index 0
            offset = len(subs) - x.type.ndim
            subs = [subs[offset + j] if d != 1 else "0" for j, d in enumerate(x.shape)]
        else:
            index = node.attrs["index"] if node.op is ops.getitem else \
                em.view_starts[id(value)]
            it = iter(subs)
            base = []
            for entry in index:
                if isinstance(entry, tuple):
                    start, _, step = entry
                    base.append(_offset(start, step, next(it)))
                else:
                    base.append(str(entry))
            subs = base + list(it)  # trailing dims: implicit full slices
        value, node = x, x.producer
    return value, subs


def _offset(start: int | str, step: int, i: str) -> str:
    if i == "0":
        return str(start)
    if step != 1 and not i.isidentifier():
        i = f"({i})"  # a subscript of an inner view: x[::2][1:] reads x[2 * (1 + i)]
    scaled = i if step == 1 else f"{step} * {i}"
    return scaled if start == 0 else f"{start} + {scaled}"


def render(em: Emitter, nest: LoopNest) -> None:
    order = nest.order or range(len(nest.domain))
    with em.loops([(nest.index[d], nest.domain[d]) for d in order], nest.work()):
        for statement in nest.statements:
            em.line(statement)
        subscript = ", ".join(nest.index)
        for array, expr in nest.stores:
            em.line(f"{array}[{subscript}] = {expr}")


def lower_elementwise(em: Emitter, node: Node) -> None:
    out = node.output
    if out.type.ndim == 0:
        args = [em(v) for v in node.inputs]
        em.line(f"{em.define(out)} = {scalar_expression(node, args)}")
        return
    domain = dims(em, out)
    for v in node.inputs:
        check_extents(em, v, domain, node.op.name)
    name = em.define(out)
    nest = LoopNest(domain, tuple(em.fresh(f"i{d}") for d in range(out.type.ndim)))
    expr = scalar_expression(node, [load(em, v, nest) for v in node.inputs])
    nest.stores.append((name, expr))
    em.line(f"{name} = {empty(domain, out.dtype)}")
    render(em, nest)


# ---------------------------------------------------------------- registry

Lowering = Callable[[Emitter, Node], None]
LOWERINGS: dict[Op, Lowering] = {}


lowering = ops.registrar(LOWERINGS, "lowering")


for _op in SCALAR_RULES:
    lowering(_op)(lower_elementwise)


@lowering(ops.constant)
def _constant(em: Emitter, node: Node) -> None:
    value = node.attrs["value"]
    if value.ndim == 0:
        em.line(f"{em.define(node.output, 'k')} = {literal(value.item(), value.dtype)}")
    else:
        em.alias(node.output, em.constant_arg(value))


@lowering(ops.full)
def _full(em: Emitter, node: Node) -> None:
    out = node.output
    fill = literal(node.attrs["fill"], out.dtype)
    if out.type.ndim == 0:
        em.line(f"{em.define(out)} = {fill}")
    else:
        em.line(f"{em.define(out)} = np.full({out.shape}, {fill}, {np_type(out.dtype)})")


# ---------------------------------------------------------------- tapes

TAPE_START_ROWS = 16  # enough for short loops without growing


def _tape_pool(em: Emitter, node: Node) -> str:
    """The argument holding a tape slot's buffer between calls: a one-element
    numba typed list, which compiled code can rebind when the tape grows."""
    slot = node.attrs["slot"]
    if slot not in em.tape_pools:
        out = node.output
        first = np.empty((TAPE_START_ROWS, *out.shape[1:]), out.dtype)
        em.tape_pools[slot] = em.constant_arg(runtime.new_tape_pool(first))
    return em.tape_pools[slot]


@lowering(ops.tape_new)
def _tape_new(em: Emitter, node: Node) -> None:
    em.line(f"{em.define(node.output)} = rt.tape_start({_tape_pool(em, node)})")


@lowering(ops.tape_push)
def _tape_push(em: Emitter, node: Node) -> None:
    tape, row, count = node.inputs
    # The push writes into the tape's buffer: the old tape value is dead after
    # this node (tapes are threaded linearly through the recording loop).
    em.line(f"{em.define(node.output)} = rt.tape_push({_tape_pool(em, node)}, {em(tape)}, "
            f"{em(row)}, {em(count)})")


# ---------------------------------------------------------------- reductions

@dataclass(frozen=True)
class Monoid:
    combine: Callable[[str, str], str]  # (accumulator, element) -> new accumulator
    buffered: str | None = None  # runtime helper reducing a float buffer, reassociated
    # the accumulator's start for a dtype; None: the op's identity
    init: Callable[[np.dtype], str] | None = None


def _extreme(sign: int) -> Callable[[np.dtype], str]:
    """max/min have no identity: they start from the dtype's lowest/highest value."""
    def init(dtype: np.dtype) -> str:
        if dtype == np.bool_:
            return literal(sign < 0, dtype)
        if dtype.kind == "f":
            return literal(-sign * np.inf, dtype)
        info = np.iinfo(dtype)
        return literal(info.min if sign > 0 else info.max, dtype)

    return init


MONOIDS: dict[Op, Monoid] = {
    ops.reduce_sum: Monoid(lambda acc, v: f"{acc} + {v}", "pairwise"),
    ops.reduce_prod: Monoid(lambda acc, v: f"{acc} * {v}", "rt.prod_reassoc"),
    ops.reduce_max: Monoid(lambda acc, v: f"rt.maximum({acc}, {v})", init=_extreme(+1)),
    ops.reduce_min: Monoid(lambda acc, v: f"rt.minimum({acc}, {v})", init=_extreme(-1)),
    ops.reduce_any: Monoid(lambda acc, v: f"{acc} or {v}"),
    ops.reduce_all: Monoid(lambda acc, v: f"{acc} and {v}"),
}


def _initial(op: Op, dtype: np.dtype) -> str:
    """The accumulator's first value, as source text."""
    init = MONOIDS[op].init
    return init(dtype) if init is not None else literal(op.identity, dtype)


def _accumulator_dtype(node: Node) -> np.dtype:
    # NumPy accumulates in the result dtype (float32 sums in float32, in its
    # pairwise order): so do we, so that results match NumPy's bit for bit.
    return node.output.dtype


@lowering(*MONOIDS)
def _reduction(em: Emitter, node: Node) -> None:
    emit_reduction(em, node)


def emit_reduction(em: Emitter, node: Node, nest: LoopNest | None = None,
                   element: str | None = None) -> None:
    """The loops of a reduction over its input's domain.

    A fusion group passes ``nest`` (per-element statements and stores of the
    producers fused in front, written with ``nest.index``) and ``element``
    (the reduced input's element); alone, the reduction loads its input.
    """
    (x,) = node.inputs
    out, axes, keepdims = node.output, node.attrs["axes"], node.attrs["keepdims"]
    if nest is None:
        nest = LoopNest(dims(em, x), tuple(em.fresh(f"i{d}") for d in range(x.type.ndim)))
        element = load(em, x, nest)
    shape = nest.domain  # x's extents
    if node.op.identity is None:
        _check_not_empty(em, [shape[a] for a in axes], node.op)
    monoid, acc_dtype = MONOIDS[node.op], _accumulator_dtype(node)
    logical = node.op in (ops.reduce_any, ops.reduce_all)
    row = _row_in_memory(em, node, nest, element)
    element = cast(element, x.dtype, np.dtype(bool) if logical else acc_dtype)
    index = nest.index
    kept = [d for d in range(x.type.ndim) if d not in axes]
    trailing = list(axes) == list(range(x.type.ndim - len(axes), x.type.ndim))
    name = em.define(out)
    acc = em.fresh("acc")

    def body(slot: str, store: bool = False) -> None:
        """The element's statements and stores, then ``slot`` takes the element:
        combined into it (an accumulator), or stored (a buffer entry)."""
        for statement in nest.statements:
            em.line(statement)
        for array, expr in nest.stores:
            em.line(f"{array}[{', '.join(index)}] = {expr}")
        em.line(f"{slot} = {element if store else monoid.combine(slot, element)}")

    out_shape = tuple(shape[d] if d in kept else 1 for d in range(x.type.ndim)) \
        if keepdims else tuple(shape[d] for d in kept)
    if trailing:  # kept axes outside, a scalar accumulator inside
        out_index = [index[d] if d in kept else "0" for d in range(x.type.ndim)]
        out_index = out_index if keepdims else [index[d] for d in kept]
        if out.type.ndim:
            em.allocate(f"{name} = {empty(out_shape, out.dtype)}")
        outer = [(index[d], shape[d]) for d in kept]
        length = shape[-1] if x.type.ndim else 1
        if isinstance(length, str):  # a run-time row length: one buffer of that length
            buffered = "pairwise" if monoid.buffered == "pairwise" and \
                acc_dtype.kind == "f" else None
            chunk = length
        else:
            buffered = monoid.buffered if acc_dtype.kind == "f" and length > 1 else None
            limit = WHOLE_ARRAY_CHUNK if not outer else REDUCTION_CHUNK
            chunk = min(length, limit)
        # A whole N-D array's sum is one pairwise sum over its flattened
        # elements, as NumPy's over a contiguous array (rows summed one by one
        # would differ in the last bit, and run on one thread).
        flat = buffered == "pairwise" and not outer and len(axes) > 1 and \
            all(isinstance(d, int) for d in shape)
        if flat:
            length = int(np.prod(shape, dtype=np.int64))
            chunk = min(length, WHOLE_ARRAY_CHUNK)
        # A row of run-time length (x[mask], x[:i]: short, just written, in
        # cache) is summed where it is. Rows of static length stream through
        # a buffer: the fill loop's sequential loads keep memory busy, where the
        # pairwise leaves reading DRAM directly were 1.4x slower (variance of
        # 1e7) and no faster on layer norm's rows.
        in_place = buffered == "pairwise" and row is not None and isinstance(length, str)
        buf = row if in_place else em.fresh("lanes")
        allocate = f"{buf} = np.empty({chunk}, {np_type(acc_dtype)})"
        if buffered and isinstance(chunk, str) and not in_place:
            em.line(allocate)
        whole = not outer and (len(axes) == 1 or flat)  # the whole array to a scalar
        with em.loops(outer, nest.work()):
            em.line(f"{acc} = {_initial(node.op, acc_dtype)}")
            if buffered and not isinstance(chunk, str) and not whole:
                em.scratch(allocate)  # (a whole array's: _buffered_row's choice)
            if flat:
                _buffered_row(em, index[-1], length, chunk, buf, acc, monoid, acc_dtype,
                              body, allocate, leading=list(zip(index, shape, strict=True)))
            else:
                with em.loops([(index[d], shape[d]) for d in axes[:-1]]):
                    if buffered:
                        _buffered_row(em, index[-1], length, chunk, buf, acc, monoid,
                                      acc_dtype, None if in_place else body,
                                      allocate if whole else None)
                    else:
                        with em.loops([(index[d], shape[d]) for d in axes[-1:]]):
                            body(acc)
            result = cast(acc, acc_dtype, out.dtype)
            em.line(f"{name}[{', '.join(out_index)}] = {result}" if out.type.ndim else
                    f"{name} = {result}")
        return
    # Reduced axes in the middle: sweep the input in memory order and
    # accumulate into an array over the kept axes.
    kept_shape = shape_text(tuple(shape[d] for d in kept))
    em.line(f"{acc} = np.full({kept_shape}, {_initial(node.op, acc_dtype)}, {np_type(acc_dtype)})")
    with em.loops([(index[d], shape[d]) for d in range(x.type.ndim)]):
        body(f"{acc}[{', '.join(index[d] for d in kept)}]")
    em.line(f"{name} = {acc}.astype({np_type(out.dtype)}).reshape({shape_text(out_shape)})")


def _row_in_memory(em: Emitter, node: Node, nest: LoopNest, element: str) -> str | None:
    """The 1-D array a float sum over its input's last axis reads in place, with
    no buffer: the input itself, or its row at the outer indices. Only when the
    input is a C-contiguous array in memory and nothing is computed per element."""
    (x,) = node.inputs
    if not (node.op is ops.reduce_sum and list(node.attrs["axes"]) == [x.type.ndim - 1]
            and x.dtype.kind == "f" and x.dtype == _accumulator_dtype(node)
            and em.has(x) and em.layout(x) == "C"
            and not nest.statements and not nest.stores and element == load(em, x, nest)):
        return None
    return em(x) if x.type.ndim == 1 else f"{em(x)}[{', '.join(nest.index[:-1])}]"


def _check_not_empty(em: Emitter, reduced: list[Extent], op: Op) -> None:
    """NumPy's error for max/min over no elements, where that is known at run
    time only (static extents are checked while tracing)."""
    run_time = [d for d in reduced if isinstance(d, str)]
    if run_time:
        with em.block(f"if {' * '.join(run_time)} == 0:"):
            em.line(f"raise ValueError({ops.empty_reduction_message(op)!r})")


# A float sum/prod over the last axis computes its elements into a buffer (one
# chunk of the row at a time) and reduces the buffer with a runtime helper: the
# element loop then has no loop-carried dependency and vectorises (exp, tanh,
# ... included). Sums follow NumPy's pairwise order exactly: chunks are whole
# subtrees of NumPy's pairwise tree, combined in the tree's order.
REDUCTION_CHUNK = 4096
# A whole array's chunks are smaller: their buffer then stays in a 32 KiB L1
# cache next to the input streaming through it (sum(x*x) of 1e6: 1.4x faster
# than with 4096), and their many chunks are split across threads anyway.
WHOLE_ARRAY_CHUNK = 1024


def pairwise_chunks(n: int, limit: int = REDUCTION_CHUNK) -> tuple[list[int], list[int]]:
    """Chunk lengths (subtrees of NumPy's pairwise sum of n elements, each at
    most ``limit``) and the postfix program combining their sums."""
    lengths: list[int] = []
    program: list[int] = []

    def split(m: int) -> None:
        if m <= limit:
            lengths.append(m)
            program.append(1)
            return
        half = m // 2
        half -= half % 8
        split(half)
        split(m - half)
        program.append(0)

    split(n)
    return lengths, program


def _buffered_row(em: Emitter, last: str, length: Extent, chunk: Extent, buf: str, acc: str,
                  monoid: Monoid, dtype: np.dtype, body: Callable[..., None] | None,
                  allocate: str | None = None,
                  leading: list[tuple[str, int]] | None = None) -> None:
    """Reduce the last axis (``last`` in range(length)) chunk by chunk through ``buf``.

    With ``leading`` (every axis's index and extent: a whole N-D array) the
    "row" is the flattened array, of ``length`` elements, and chunks are
    filled row segment by row segment (``_fill_segments``).

    With ``allocate`` (the line allocating ``buf``; a whole-array reduction) the
    chunks of a pairwise sum may run in parallel, each thread with its own
    buffer (else ``buf`` is allocated once, as scratch): chunks are whole
    subtrees of NumPy's pairwise tree, so their sums,
    combined in the tree's order afterwards, are NumPy's bit for bit. Without
    a ``body`` (a pairwise sum of a run-time-length row in memory: one chunk),
    ``buf`` is that row, read where it is."""
    def reduced(count: str) -> str:
        if monoid.buffered == "pairwise":
            return f"rt.pairwise_sum({buf}, 0, {count}, {literal(0, dtype)})"
        return f"{monoid.buffered}({buf}, {count})"

    if isinstance(length, str):
        lengths, program = [length], []
    elif monoid.buffered == "pairwise":
        lengths, program = pairwise_chunks(length, chunk)
    else:
        lengths, program = [min(chunk, length - s) for s in range(0, length, chunk)], []
    if len(lengths) == 1:
        if allocate and not isinstance(chunk, str):
            em.scratch(allocate)
        if leading:
            _fill_segments(em, leading, "0", str(length), buf, body)
        elif body is not None:
            with em.loops([(last, length)]):
                body(f"{buf}[{last}]", store=True)
        em.line(f"{acc} = {monoid.combine(acc, reduced(str(length)))}")
        return
    sizes = em.constant_arg(np.array(lengths, np.int64))
    sums = em.fresh("chunk_sums")
    if program:
        em.scratch(f"{sums} = np.empty({len(lengths)}, {np_type(dtype)})")
    number, start, count, j = em.fresh("chunk"), em.fresh("c"), em.fresh("n"), em.fresh("j")
    chunks = [(number, len(lengths))]
    parallel = bool(program and allocate and em.runs_parallel(chunks, length))
    starts = em.constant_arg(np.cumsum([0, *lengths[:-1]], dtype=np.int64))
    if allocate and not parallel and not isinstance(chunk, str):
        em.scratch(allocate)
    # each thread its own buffer
    with em.thread_blocks(number, len(lengths), [allocate]) if parallel else em.loops(chunks):
        em.line(f"{count} = {sizes}[{number}]")
        # a no-op that tells LLVM the start is non-negative: without it every
        # load checks for a negative index and the element loop stays scalar (3x)
        em.line(f"{start} = max({starts}[{number}], 0)")
        if leading:
            _fill_segments(em, leading, start, count, buf, body)
        else:
            with em.block(f"for {j} in range({count}):"):
                em.line(f"{last} = {start} + {j}")
                body(f"{buf}[{j}]", store=True)
        if program:
            em.line(f"{sums}[{number}] = {reduced(count)}")
        else:
            em.line(f"{acc} = {monoid.combine(acc, reduced(count))}")
    if program:
        tree = em.constant_arg(np.array(program, np.int8))
        em.line(f"{acc} = {monoid.combine(acc, f'rt.combine_postfix({sums}, {tree})')}")


def _fill_segments(em: Emitter, axes: list[tuple[str, int]], start: str, count: str,
                   buf: str, body: Callable[..., None]) -> None:
    """``buf[:count]`` = the elements at flat (C-order) positions ``start`` ..
    ``start + count`` of the domain ``axes``, a run within one row at a time:
    the inner loop reads along the last axis and vectorises."""
    index = [name for name, _ in axes]
    extents = [n for _, n in axes]
    at, end, row, col, run, offset, j = (em.fresh(h) for h in
                                         ("f", "end", "row", "col", "run", "o", "j"))
    em.line(f"{at} = {start}")
    em.line(f"{end} = {start} + {count}")
    with em.block(f"while {at} < {end}:"):
        em.line(f"{row} = {at} // {extents[-1]}")
        # max(.., 0): no-ops telling LLVM the indices are non-negative (vectorises)
        em.line(f"{col} = max({at} - {row} * {extents[-1]}, 0)")
        em.line(f"{offset} = max({at} - {start}, 0)")
        em.line(f"{run} = min({extents[-1]} - {col}, {end} - {at})")
        for d in range(len(axes) - 2, 0, -1):
            em.line(f"{index[d]} = {row} % {extents[d]}")
            em.line(f"{row} = {row} // {extents[d]}")
        em.line(f"{index[0]} = {row}")
        with em.block(f"for {j} in range({run}):"):
            em.line(f"{index[-1]} = {col} + {j}")
            body(f"{buf}[{offset} + {j}]", store=True)
        em.line(f"{at} += {run}")


@lowering(ops.argmax, ops.argmin)
def _arg_reduction(em: Emitter, node: Node) -> None:
    (x,) = node.inputs
    out, axis, keepdims = node.output, node.attrs["axis"], node.attrs["keepdims"]
    better = ">" if node.op is ops.argmax else "<"
    name = em.define(out)
    if x.type.ndim == 0:
        em.line(f"{name} = np.int64(0)" if out.type.ndim == 0 else
                f"{name} = np.zeros({out.shape}, np.int64)")
        return
    index = [em.fresh(f"i{d}") for d in range(x.type.ndim)]
    best, pos, count = em.fresh("best"), em.fresh("pos"), em.fresh("k")
    element = f"{em(x)}[{', '.join(index)}]"
    reduced = list(range(x.type.ndim)) if axis is None else [axis]
    kept = [d for d in range(x.type.ndim) if d not in reduced]
    if out.type.ndim:
        em.line(f"{name} = {empty(out.shape, np.int64)}")
    with em.loops([(index[d], x.shape[d]) for d in kept], x.type.size):
        first = [("0" if d in reduced else index[d]) for d in range(x.type.ndim)]
        em.line(f"{best} = {em(x)}[{', '.join(first)}]")
        em.line(f"{pos} = 0")
        em.line(f"{count} = 0")
        with em.loops([(index[d], x.shape[d]) for d in reduced]):
            # First occurrence wins; the first NaN wins over every number.
            test = (f"{element} {better} {best} or "
                    f"({element} != {element} and {best} == {best})")
            with em.block(f"if {test}:"):
                em.line(f"{best} = {element}")
                em.line(f"{pos} = {count}")
            em.line(f"{count} += 1")
        if out.type.ndim == 0:
            em.line(f"{name} = np.int64({pos})")
        else:
            out_index = [("0" if d in reduced else index[d]) for d in range(x.type.ndim)]
            out_index = out_index if keepdims else [index[d] for d in kept]
            em.line(f"{name}[{', '.join(out_index)}] = {pos}")


# (running result, next element) -> the next running result, per scan op.
SCAN_COMBINE = {
    ops.cumsum: lambda acc, v: f"{acc} + {v}",
    ops.cumprod: lambda acc, v: f"{acc} * {v}",
    ops.cummax: lambda acc, v: f"rt.maximum({acc}, {v})",
    ops.cummin: lambda acc, v: f"rt.minimum({acc}, {v})",
}


@lowering(*SCAN_COMBINE)
def _cumulative(em: Emitter, node: Node) -> None:
    """NumPy's order: each element is the previous result combined with the
    next input (cast to the result dtype first). The scanned axis is a
    sequential loop with the dimensions after it inside (contiguous, so an
    axis-0 scan vectorises across its rows) and those before it outside."""
    (x,) = node.inputs
    out, axis = node.output, node.attrs["axis"]
    name = em.define(out)
    em.line(f"{name} = {empty(out.shape, out.dtype)}")
    if out.type.size == 0:
        return
    combine = SCAN_COMBINE[node.op]
    index = [em.fresh(f"i{d}") for d in range(x.type.ndim)]

    def at(position: str) -> str:
        return ", ".join(position if d == axis else index[d] for d in range(x.type.ndim))

    def element(position: str) -> str:
        return f"{np_type(out.dtype)}({em(x)}[{at(position)}])"

    step = index[axis]
    inner = [(index[d], x.shape[d]) for d in range(axis + 1, x.type.ndim)]
    with em.loops([(index[d], x.shape[d]) for d in range(axis)]):
        with em.loops(inner):
            em.line(f"{name}[{at('0')}] = {element('0')}")
        with em.block(f"for {step} in range(1, {x.shape[axis]}):"), em.loops(inner):
            previous = f"{name}[{at(f'{step} - 1')}]"
            em.line(f"{name}[{at(step)}] = {combine(previous, element(step))}")


@contextlib.contextmanager
def _each_lane(em: Emitter, x: Value, axis: int, work: int = 0):
    """Loops over the lanes of ``x`` along ``axis``; yields a lane's subscript."""
    index = [em.fresh(f"i{d}") for d in range(x.type.ndim)]
    with em.loops([(index[d], x.shape[d]) for d in range(x.type.ndim) if d != axis], work):
        yield ", ".join(":" if d == axis else index[d] for d in range(x.type.ndim))


@lowering(ops.select)
def _select(em: Emitter, node: Node) -> None:
    """A quickselect of each lane (runtime.select_smallest)."""
    (x,) = node.inputs
    out, ks = node.output, node.attrs["ks"]
    name = em.define(out)
    em.line(f"{name} = {empty(out.shape, out.dtype)}")
    kth = em.constant_arg(np.array(ks, np.int64))
    with _each_lane(em, x, x.type.ndim - 1, x.type.size) as lane:
        em.line(f"rt.select_smallest({em(x)}[{lane}], {kth}, {name}[{lane}])")


@lowering(ops.argsort)
def _argsort(em: Emitter, node: Node) -> None:
    """numba's merge sort (stable, NaN last as NumPy's) on each lane of the axis."""
    (x,) = node.inputs
    name = em.define(node.output)
    em.line(f"{name} = {empty(node.output.shape, np.int64)}")
    with _each_lane(em, x, node.attrs["axis"]) as lane:
        em.line(f"{name}[{lane}] = np.argsort({em(x)}[{lane}], kind='mergesort')")


@lowering(ops.searchsorted)
def _searchsorted(em: Emitter, node: Node) -> None:
    a, v = node.inputs
    out = node.output
    name = em.define(out)
    right = node.attrs["side"] == "right"
    if not out.type.ndim:
        em.line(f"{name} = rt.search_sorted({em(a)}, {em(v)}, {right})")
        return
    em.line(f"{name} = {empty(out.shape, out.dtype)}")
    index = [em.fresh(f"i{d}") for d in range(v.type.ndim)]
    with em.loops(list(zip(index, v.shape, strict=True)), out.type.size):
        at = ", ".join(index)
        em.line(f"{name}[{at}] = rt.search_sorted({em(a)}, {em(v)}[{at}], {right})")


# ---------------------------------------------------------------- linear algebra

# numba's np.linalg functions (LAPACK through scipy, as numba binds it; behind
# cached helpers of runtime.py), one call per matrix of the stack. numba
# raises LinAlgError for NaN or inf input where NumPy's LAPACK call returns
# NaNs (README).
LAPACK_CALLS = {ops.solve: "rt.solve", ops.inv: "rt.inv", ops.det: "rt.det",
                ops.slogdet: "rt.slogdet_pair", ops.cholesky: "rt.cholesky"}


@lowering(*LAPACK_CALLS)
def _lapack(em: Emitter, node: Node) -> None:
    out, call = node.output, LAPACK_CALLS[node.op]
    name = em.define(out)
    stack = node.inputs[0].shape[:-2]
    if not stack:
        result = f"{call}({', '.join(em(v) for v in node.inputs)})"
        em.line(f"{name} = {result if out.type.ndim else f'{np_type(out.dtype)}({result})'}")
        return
    em.line(f"{name} = {empty(out.shape, out.dtype)}")
    index = [em.fresh(f"i{d}") for d in range(len(stack))]
    with em.loops(list(zip(index, stack, strict=True))):
        at = ", ".join(index)
        em.line(f"{name}[{at}] = {call}({', '.join(f'{em(v)}[{at}]' for v in node.inputs)})")


def _as_dtype(em: Emitter, v: Value, dtype: np.dtype, contiguous: bool = True) -> str:
    if v.dtype != dtype:
        return f"{em(v)}.astype({np_type(dtype)})"
    return em.contiguous(v) if contiguous else em(v)


def _vector_matrix_loops(em: Emitter, a: Value, b: Value, out: Value) -> None:
    """``out = a @ b`` (1-D @ 2-D) as ``out[j] += a[k] * b[k, j]`` over b's rows:
    loads index the arrays the views look into, so the row loop vectorises."""
    rows, cols = extent(em, b, 0), extent(em, b, 1)
    name = em.define(out)
    em.line(f"{name} = np.zeros({shape_text((cols,))}, {np_type(out.dtype)})")
    k, j, ak = em.fresh("k"), em.fresh("j"), em.fresh("ak")
    with em.loops([(k, rows)]):
        element = load(em, a, LoopNest((rows,), (k,)))
        em.line(f"{ak} = {cast(element, a.dtype, out.dtype)}")
        with em.loops([(j, cols)]):
            element = load(em, b, LoopNest((rows, cols), (k, j)))
            em.line(f"{name}[{j}] += {ak} * {cast(element, b.dtype, out.dtype)}")


def _check_core_dims(em: Emitter, a: Value, b: Value) -> None:
    """matmul's contracted extents, when one is known at run time only."""
    ka, kb = extent(em, a, a.type.ndim - 1), extent(em, b, max(b.type.ndim - 2, 0))
    with em.block(f"if {ka} != {kb}:"):
        em.line(f"raise rt.ContractedMismatch({ka}, {kb})")


# BLAS does this many multiply-adds in the time a fused loop takes for one
# element: a matrix product of PARALLEL_MIN_WORK * 16 = 2^22 multiply-adds
# (~0.1 ms of one core) is worth splitting across threads, when the BLAS runs
# on one thread.
MULTIPLY_ADDS_PER_LOOP_ELEMENT = 16


@lowering(ops.matmul)
def _matmul(em: Emitter, node: Node) -> None:
    a, b = node.inputs
    out = node.output
    dtype = out.dtype
    k = a.shape[-1]
    if None in (k, b.shape[max(b.type.ndim - 2, 0)]):
        _check_core_dims(em, a, b)
    if dtype.kind == "f" and config.get("numpy_blas") and blas.AVAILABLE:
        _numpy_blas_matmul(em, a, b, out)
        return
    if not (a.type.static and b.type.static) and dtype.kind == "f" and \
            a.type.ndim <= 2 and b.type.ndim <= 2 and a.type.ndim + b.type.ndim < 4:
        # Views with run-time extents in loop bodies (x[:i] @ y[:i],
        # v @ A[:, i:m]) are read in place, not copied to contiguous buffers:
        # numba's np.dot takes strided vectors (calling the same BLAS dot as
        # NumPy); vector-matrix products loop over the matrix in memory order.
        if (a.type.ndim, b.type.ndim) == (1, 2):
            _vector_matrix_loops(em, a, b, out)
            return
        helper = "np.dot" if b.type.ndim == 1 and a.type.ndim == 1 else "rt.mat_vec"
        name = em.define(out)
        em.line(f"{name} = {helper}({_as_dtype(em, a, dtype, False)}, "
                f"{_as_dtype(em, b, dtype, False)})")
        return
    name = em.define(out)
    if out.type.size == 0 or k == 0:
        zero = literal(0, dtype)
        em.line(f"{name} = " + (zero if out.type.ndim == 0 else
                                f"np.zeros({out.shape}, {np_type(dtype)})"))
        return
    an, bn = em.fresh("lhs"), em.fresh("rhs")
    em.line(f"{an} = {_as_dtype(em, a, dtype)}")
    em.line(f"{bn} = {_as_dtype(em, b, dtype)}")
    if a.type.ndim <= 2 and b.type.ndim <= 2:
        k = extent(em, a, a.type.ndim - 1)
        if _splits_rows(em, a, b, out, k):
            em.line(f"{name} = rt.split_dot({an}, {bn}, rt.dot_threads())")
            em.launches_threads = True
            return
        em.line(f"{name} = {_dot(an, a.type.ndim, bn, b.type.ndim, k, out.shape, dtype)}")
        return
    core = out.shape[out.type.ndim - (a.type.ndim > 1) - (b.type.ndim > 1):]
    with _batch_loops(em, a, b, out, name) as index:
        # numba's np.dot takes contiguous matrices only.
        lhs, rhs = (_batch_item(array, v, index) if v.type.ndim <= 2 else
                    f"np.ascontiguousarray({_batch_item(array, v, index)})"
                    for array, v in ((an, a), (bn, b)))
        product = _dot(lhs, min(a.type.ndim, 2), rhs, min(b.type.ndim, 2), k, core, dtype)
        em.line(f"{name}[{', '.join(index)}] = {product}")


# NumPy's BLAS, called as NumPy's matmul calls it (lower/blas.py), by operand ranks.
_BLAS_PRODUCTS = {(1, 1): "blas.vec_vec", (1, 2): "blas.vec_mat", (2, 1): "blas.mat_vec",
                  (2, 2): "blas.matmul"}


def _numpy_blas_matmul(em: Emitter, a: Value, b: Value, out: Value) -> None:
    """A float product through NumPy's own BLAS: views (transposes, slices,
    run-time extents) go in as they are; the helpers copy only what BLAS
    cannot read."""
    lhs, rhs = _as_dtype(em, a, out.dtype, False), _as_dtype(em, b, out.dtype, False)
    blas.register_product(out.dtype)  # before the kernel is compiled or loaded
    name = em.define(out)
    if a.type.ndim <= 2 and b.type.ndim <= 2:
        if _splits_rows(em, a, b, out, a.shape[-1]):
            em.line(f"{name} = blas.split_matmul({lhs}, {rhs}, blas.split_threads())")
            em.launches_threads = True
            return
        em.line(f"{name} = {_BLAS_PRODUCTS[a.type.ndim, b.type.ndim]}({lhs}, {rhs})")
        return
    core = (min(a.type.ndim, 2), min(b.type.ndim, 2))
    with _batch_loops(em, a, b, out, name) as index:
        operands = f"{_batch_item(lhs, a, index)}, {_batch_item(rhs, b, index)}"
        target = f"{name}[{', '.join(index)}]"
        if core == (2, 2):
            em.line(f"blas.matmul_into({operands}, {target})")
        else:
            em.line(f"{target} = {_BLAS_PRODUCTS[core]}({operands})")


@contextlib.contextmanager
def _batch_loops(em: Emitter, a: Value, b: Value, out: Value, name: str):
    """Allocate a batched product's result ``name`` and loop over its batch
    dims (one product per matrix); yields the batch index variables."""
    for v in (a, b, out):
        ops.check_static(v.type, "a batched matmul")
    batch = out.shape[: out.type.ndim - (a.type.ndim > 1) - (b.type.ndim > 1)]
    index = [em.fresh(f"b{d}") for d in range(len(batch))]
    em.line(f"{name} = {empty(out.shape, out.dtype)}")
    with em.loops(list(zip(index, batch, strict=True))):
        yield index


def _batch_item(array: str, v: Value, index: list[str]) -> str:
    """The matrix (or vector) of ``v`` at a batch index of the broadcast result."""
    if v.type.ndim <= 2:
        return array
    dims = v.shape[: v.type.ndim - 2]
    offset = len(index) - len(dims)
    return f"{array}[{', '.join(index[offset + j] if d != 1 else '0' for j, d in enumerate(dims))}]"


def _splits_rows(em: Emitter, a: Value, b: Value, out: Value, k: Extent) -> bool:
    """A float matrix-matrix product with enough multiply-adds to split across threads."""
    return (out.dtype.kind == "f" and a.type.ndim == b.type.ndim == 2 and out.type.static
            and isinstance(k, int)
            and em.runs_parallel([("row", a.shape[0])],
                                 out.type.size * k // MULTIPLY_ADDS_PER_LOOP_ELEMENT))


def _dot(lhs: str, lhs_ndim: int, rhs: str, rhs_ndim: int, k: Extent,
         shape: tuple, dtype: np.dtype) -> str:
    """A (batch-free) matrix product: BLAS for floats, loops for integers."""
    if dtype.kind == "f":
        return f"np.dot({lhs}, {rhs})"
    lhs2 = f"{lhs}.reshape((1, {k}))" if lhs_ndim == 1 else lhs
    rhs2 = f"{rhs}.reshape(({k}, 1))" if rhs_ndim == 1 else rhs
    product = f"rt.int_matmul({lhs2}, {rhs2})"
    if len(shape) == 2:
        return product
    return f"{product}[0, 0]" if not shape else f"{product}.ravel()"


# ---------------------------------------------------------------- shapes and views

@lowering(ops.reshape)
def _reshape(em: Emitter, node: Node) -> None:
    (x,) = node.inputs
    out = node.output
    if out.type.ndim == 0:  # size-1 array -> scalar
        em.line(f"{em.define(out)} = {em(x)}[{', '.join(['0'] * x.type.ndim) or '()'}]")
    elif x.type.ndim == 0:
        em.line(f"{em.define(out)} = np.full({out.shape}, {em(x)}, {np_type(out.dtype)})")
    else:
        moved = node.attrs.get("from_axes") or (None,) * out.type.ndim  # run-time extents
        shape = tuple(d if d is not None else extent(em, x, moved[k])
                      for k, d in enumerate(out.shape))
        source = em(x) if em.layout(x) == "C" else f"np.ascontiguousarray({em(x)})"
        em.line(f"{em.define(out)} = {source}.reshape({shape_text(shape)})")


@lowering(ops.transpose)
def _transpose(em: Emitter, node: Node) -> None:
    (x,) = node.inputs
    perm = node.attrs["perm"]
    flipped = {"C": "F", "F": "C"}.get(em.layout(x), "A")
    layout = flipped if list(perm) == list(range(x.type.ndim))[::-1] else "A"
    if x.type.ndim <= 1:
        em.alias(node.output, em(x), em.layout(x))
        return
    # numba types np.transpose(x, perm) as layout "A", which sends np.dot down
    # a copying slow path (4x on a matrix-vector product); x.T keeps C <-> F.
    view = f"{em(x)}.T" if layout != "A" else f"np.transpose({em(x)}, {perm})"
    em.line(f"{em.define(node.output, layout=layout)} = {view}")


@lowering(ops.broadcast_to)
def _broadcast_to(em: Emitter, node: Node) -> None:
    (x,) = node.inputs
    out = node.output
    if x.type.ndim == 0:
        em.line(f"{em.define(out)} = np.full({out.shape}, {em(x)}, {np_type(out.dtype)})")
    else:
        em.line(f"{em.define(out, layout='A')} = np.broadcast_to({em(x)}, {out.shape})")


# A broadcast scalar joins the kernels that read it (they read the scalar)
# instead of becoming an np.full array; see fusion._fusible.
SCALAR_RULES[ops.broadcast_to] = lambda a, dt, node: a[0]


def _view_layout(em: Emitter, x: Value, index: tuple) -> str:
    """C-contiguous views: leading ints then at most one unit-step slice."""
    if em.layout(x) != "C":
        return "A"
    rest = [e for e in index if not isinstance(e, int)]
    leading = all(isinstance(e, int) for e in index[: len(index) - len(rest)])
    return "C" if leading and (not rest or (len(rest) == 1 and isinstance(index[-1], tuple)
                                            and index[-1][2] == 1)) else "A"


@lowering(ops.getitem)
def _getitem(em: Emitter, node: Node) -> None:
    (x,) = node.inputs
    index = node.attrs["index"]
    out = node.output
    if not index:
        em.alias(out, em(x), em.layout(x))
        return
    layout = _view_layout(em, x, index)
    em.line(f"{em.define(out, layout=layout)} = {em(x)}[{index_text(index)}]")


def _store_loop(em: Emitter, name: str, x: Value, index: tuple, v: Value,
                target: tuple[Extent, ...] | None = None) -> None:
    """``name[index] = v`` as explicit loops over the ``target`` region's shape
    (numba compiles its generic slice assignment about ten times slower); ints
    and slice starts in ``index`` may be names of run-time values."""
    target = slice_shape(x.shape, index) if target is None else target
    if v.type.ndim and (v is x or v.producer is None or ops.VIEW in v.producer.op.traits):
        # the value may be a view of the target's own memory (x[::-1] = x):
        # NumPy copies overlapping sources first, and so must we
        source = em.fresh("source")
        em.line(f"{source} = {em(v)}.copy()")
    else:
        source = None
    check_extents(em, v, target, "assignment")
    loop_vars = tuple(em.fresh(f"i{d}") for d in range(len(target)))
    it = iter(loop_vars)
    subscript = [f"{e[0]} + {e[2]} * {next(it)}" if isinstance(e, tuple) else str(e)
                 for e in index]
    subscript += list(it)  # trailing dimensions the index leaves whole
    with em.loops(list(zip(loop_vars, target, strict=True))):
        em.line(f"{name}[{', '.join(subscript) or '()'}] = "
                f"{load(em, v, LoopNest(target, loop_vars), source)}")


@lowering(ops.setitem)
def _setitem(em: Emitter, node: Node) -> None:
    x, v = node.inputs
    index = node.attrs["index"]
    out = node.output
    if x.type.ndim == 0:
        em.line(f"{em.define(out)} = {cast(em(v), v.dtype, out.dtype)}")
        return
    name = em.define(out)
    if em.can_overwrite(x, node):
        em.line(f"{name} = {em(x)}")
    else:
        em.line(f"{name} = {em(x)}.copy()")
    _store_loop(em, name, x, index, v)



# ---------------------------------------------------------------- advanced indexing

def _index_dims(em: Emitter, indices: Sequence[Value]) -> tuple[Extent, ...]:
    """The broadcast shape of the index arrays, run-time extents included."""
    shape = ops.broadcast_shapes(*(v.shape for v in indices))
    extents = []
    for k, d in enumerate(shape):
        back = len(shape) - k
        sources = [v for v in indices if v.type.ndim >= back and
                   v.shape[v.type.ndim - back] != 1]
        extents.append(d if d is not None or not sources else
                       extent(em, sources[0], sources[0].type.ndim - back))
    return tuple(extents)


def _gathered_shape(em: Emitter, node: Node, x: Value,
                    indices: Sequence[Value]) -> tuple[Extent, ...]:
    """The gathered region's extents, after run-time checks that the index
    arrays' run-time lengths agree (once, before the element loops)."""
    index_dims = _index_dims(em, indices)
    for v in indices:
        check_extents(em, v, index_dims, "integer-array index")
    return ops.gather_shape(dims(em, x), index_dims, node.attrs["axes"], node.attrs["front"])


def _gathered_element(em: Emitter, node: Node, array: str, x: Value,
                      indices: Sequence[Value], out_index: Sequence[str]) -> str:
    """``array[...]`` (``x``'s buffer) at one element of the gathered shape: index
    arrays are read at their broadcast position, wrapped when negative and
    bounds-checked."""
    axes, front = node.attrs["axes"], node.attrs["front"]
    b_shape = _index_dims(em, indices)
    b_start = 0 if front else axes[0]
    b_vars = out_index[b_start:b_start + len(b_shape)]
    others = iter(v for k, v in enumerate(out_index)
                  if not b_start <= k < b_start + len(b_shape))
    b_nest = LoopNest(b_shape, tuple(b_vars))
    subscript = []
    for axis in range(x.type.ndim):
        if axis not in axes:
            subscript.append(next(others))
            continue
        n = extent(em, x, axis)
        j = em.fresh("j")
        em.line(f"{j} = np.int64({load(em, indices[axes.index(axis)], b_nest)})")
        check_index(em, j, n, axis, node.loc)
        with em.block(f"if {j} < 0:"):
            em.line(f"{j} += {n}")
        subscript.append(j)
    return f"{array}[{', '.join(subscript)}]"


@lowering(ops.gather)
def _gather(em: Emitter, node: Node) -> None:
    x, *indices = node.inputs
    out = node.output
    index = tuple(em.fresh(f"i{d}") for d in range(out.type.ndim))
    if out.type.ndim == 0:
        em.line(f"{em.define(out)} = {_gathered_element(em, node, em(x), x, indices, ())}")
        return
    shape = _gathered_shape(em, node, x, indices)
    name = em.define(out)
    em.line(f"{name} = {empty(shape, out.dtype)}")
    with em.loops(list(zip(index, shape, strict=True))):
        em.line(f"{name}[{', '.join(index)}] = "
                f"{_gathered_element(em, node, em(x), x, indices, index)}")


@lowering(ops.scatter)
def _scatter(em: Emitter, node: Node) -> None:
    x, v, *indices = node.inputs
    target = _gathered_shape(em, node, x, indices)
    check_extents(em, v, target, "integer-array assignment")
    name = em.define(node.output)
    em.line(f"{name} = {em(x)}" if em.can_overwrite(x, node) else f"{name} = {em(x)}.copy()")
    index = tuple(em.fresh(f"i{d}") for d in range(len(target)))
    # Sequential on purpose: repeated indices must add up (or the last one win).
    with em.loops(list(zip(index, target, strict=True))):
        element = _gathered_element(em, node, name, x, indices, index)
        op = "+=" if node.attrs["accumulate"] else "="
        em.line(f"{element} {op} {load(em, v, LoopNest(target, index))}")


def _count_true(em: Emitter, mask: Value, shape: tuple[Extent, ...]) -> str:
    index = tuple(em.fresh(f"m{d}") for d in range(mask.type.ndim))
    count = em.fresh("count")
    em.line(f"{count} = 0")
    with em.loops(list(zip(index, shape, strict=True))):
        em.line(f"{count} += np.int64({load(em, mask, LoopNest(shape, index))})")
    return count


# A mask with fewer true entries than 1 in SPARSE_MASK is walked a uint64 word
# (8 entries) at a time, skipping zero words: 4x faster at 1 in 1000 than an
# entry at a time, slower from about 1 in 25 on.
SPARSE_MASK = 32


def _each_true(em: Emitter, mask: Value, shape: tuple[Extent, ...], row: str,
               count: str | None = None):
    """Loops over the mask's true entries in order (C order, as NumPy): yields
    the entry's index names; ``row`` counts the entries seen before it. Given
    the ``count`` of true entries, a sparse 1-D mask in memory skips its
    false entries 8 at a time (the caller's body is emitted for each loop)."""
    index = tuple(em.fresh(f"m{d}") for d in range(mask.type.ndim))
    em.line(f"{row} = 0")
    if count is None or mask.type.ndim != 1 or not em.has(mask) or em.layout(mask) != "C":
        yield from _each_true_entry(em, mask, shape, row, index)
        return
    (m,), words, w = index, em.fresh("words"), em.fresh("w")
    with em.block(f"if {count} * {SPARSE_MASK} < {shape[0]}:"):
        em.line(f"{words} = rt.mask_words({em(mask)})")
        with em.block(f"for {w} in range({words}.shape[0]):"):
            with em.block(f"if {words}[{w}] != 0:"):
                with em.block(f"for {m} in range({w} * 8, {w} * 8 + 8):"):
                    yield from _if_true(em, mask, shape, row, index)
        with em.block(f"for {m} in range({words}.shape[0] * 8, {shape[0]}):"):
            yield from _if_true(em, mask, shape, row, index)
    with em.block("else:"):
        yield from _each_true_entry(em, mask, shape, row, index)


def _each_true_entry(em: Emitter, mask: Value, shape: tuple[Extent, ...], row: str,
                     index: tuple[str, ...]):
    with em.loops(list(zip(index, shape, strict=True))):
        yield from _if_true(em, mask, shape, row, index)


def _if_true(em: Emitter, mask: Value, shape: tuple[Extent, ...], row: str,
             index: tuple[str, ...]):
    with em.block(f"if {load(em, mask, LoopNest(shape, index))}:"):
        yield index
        em.line(f"{row} += 1")


@lowering(ops.compress)
def _compress(em: Emitter, node: Node) -> None:
    x, mask = node.inputs
    shape = dims(em, x)
    check_extents(em, mask, shape[:mask.type.ndim], "boolean index")
    rest = shape[mask.type.ndim:]
    count = _count_true(em, mask, shape[:mask.type.ndim])
    name = em.define(node.output)
    em.line(f"{name} = {empty((count, *rest), x.dtype)}")
    row, inner = em.fresh("row"), tuple(em.fresh(f"r{d}") for d in range(len(rest)))
    for index in _each_true(em, mask, shape[:mask.type.ndim], row, count):
        with em.loops(list(zip(inner, rest, strict=True))):
            element = load(em, x, LoopNest(shape, (*index, *inner)))
            em.line(f"{name}[{', '.join((row, *inner))}] = {element}")


@lowering(ops.mask_scatter)
def _mask_scatter(em: Emitter, node: Node) -> None:
    x, v, mask = node.inputs
    shape = dims(em, x)
    check_extents(em, mask, shape[:mask.type.ndim], "boolean index")
    rest = shape[mask.type.ndim:]
    name = em.define(node.output)
    em.line(f"{name} = {em(x)}" if em.can_overwrite(x, node) else f"{name} = {em(x)}.copy()")
    source = em(v)
    if v.type.ndim > len(rest) and v.shape[0] != 1:  # one row of v per true entry
        count = _count_true(em, mask, shape[:mask.type.ndim])
        with em.block(f"if {count} != {extent(em, v, 0)}:"):
            em.line(f"raise rt.MaskAssignCount({extent(em, v, 0)}, {count})")
        if v.producer is None or ops.VIEW in v.producer.op.traits:  # may share x's memory
            source = em.fresh("source")
            em.line(f"{source} = {em(v)}.copy()")
    row, inner = em.fresh("row"), tuple(em.fresh(f"r{d}") for d in range(len(rest)))
    for index in _each_true(em, mask, shape[:mask.type.ndim], row):
        with em.loops(list(zip(inner, rest, strict=True))):
            element = load(em, v, LoopNest(("?", *rest), (row, *inner)), source)
            em.line(f"{name}[{', '.join((*index, *inner))}] = {element}")


@lowering(ops.concatenate)
def _concatenate(em: Emitter, node: Node) -> None:
    out, axis = node.output, node.attrs["axis"]
    name = em.define(out)
    em.line(f"{name} = {empty(out.shape, out.dtype)}")
    start = 0
    for v in node.inputs:
        stop = start + v.shape[axis]
        index = [(0, d, 1) for d in out.shape[:axis]] + [(start, stop, 1)]
        source = em(v) if v.dtype == out.dtype else f"{em(v)}.astype({np_type(out.dtype)})"
        em.line(f"{name}[{index_text(tuple(index))}] = {source}")
        start = stop


def _dynamic_entries(em: Emitter, x: Value, index: tuple, dyn: Sequence[Value],
                     loc: object = None, counts: dict[int, str] | None = None,
                     check: bool = True) -> tuple:
    """The index template with run-time names filled in; a dynamic slice becomes
    (start name, stop text, step) after a check that it fits the axis. A RANGE
    becomes a slice numba resolves (a view), or, given ``counts``, its first
    index and length (Python's rules, through rt.slice_range): a store region."""
    names = iter(em(v) for v in dyn)
    out = []
    for dim, e in enumerate(index):
        if e == ops.DYNAMIC:
            out.append(next(names))
            if check:
                check_index(em, out[-1], extent(em, x, dim), dim, loc)
        elif ops.is_dynamic_slice(e):
            _, length, step = e
            start, n = next(names), extent(em, x, dim)
            if length and check:
                with em.block(f"if {start} < 0 or {start} + {ops.slice_span(length, step)}"
                              f" > {n}:"):
                    where = f" at {loc}" if loc else ""
                    em.line(f"raise rt.SliceOutside({length}, {dim}, {n}, {where!r})")
            out.append((start, f"{start} + {length * step}", step))
        elif ops.is_range(e):
            _, start, stop, step = e
            start = next(names) if start == ops.DYNAMIC else start
            stop = next(names) if stop == ops.DYNAMIC else stop
            if counts is None:
                out.append(("" if start is None else start, stop, step))
                continue
            size = extent(em, x, dim)
            if start is None:
                start = 0 if step > 0 else f"{size} - 1"
            if stop is None:
                stop = size if step > 0 else f"-{size} - 1"
            first, count = em.fresh("first"), em.fresh("count")
            em.line(f"{first}, {count} = rt.slice_range({start}, {stop}, {step}, {size})")
            counts[dim] = count
            out.append((first, None, step))
        else:
            out.append(e)
    return tuple(out)


def _region_dims(em: Emitter, x: Value, index: tuple, counts: dict[int, str]) -> tuple:
    """The extents of the region ``x[index]`` (index from _dynamic_entries)."""
    static = slice_shape(x.shape, index)
    it = iter(static)
    region = []
    for dim, e in enumerate(index):
        if isinstance(e, tuple):
            n = next(it)
            region.append(counts[dim] if ops.is_range(e) else n)
    region += [extent(em, x, d) for d in range(len(index), x.type.ndim)]
    return tuple(region)


@lowering(ops.dyn_getitem)
def _dyn_getitem(em: Emitter, node: Node) -> None:
    x, *dyn = node.inputs
    out = node.output
    index = node.attrs["index"]
    subscript = index_text(_dynamic_entries(em, x, index, dyn, node.loc))
    em.line(f"{em.define(out, layout='A')} = {em(x)}[{subscript}]")
    if out.type.ndim:
        em.view_starts[id(out)] = _normalised_starts(em, x, index, dyn)


def _normalised_starts(em: Emitter, x: Value, index: tuple, dyn: Sequence[Value]) -> tuple:
    """The view's index with each run-time entry as a non-negative first index,
    so kernels can read the viewed array itself (``x[i, first + j]``): LLVM
    vectorises loads from a contiguous base, not through a strided view. The
    ``max(..., 0)`` is a no-op for valid indices that tells LLVM the index is
    non-negative (numba would otherwise check for wraparound on every load)."""
    counts: dict[int, str] = {}
    entries = _dynamic_entries(em, x, index, dyn, None, counts, check=False)
    out = []
    for dim, (template, entry) in enumerate(zip(index, entries, strict=True)):
        if template == ops.DYNAMIC:
            first = em.fresh("row")
            em.line(f"{first} = max({entry} + {extent(em, x, dim)} if {entry} < 0 "
                    f"else {entry}, 0)")
            out.append(first)
        elif isinstance(template, tuple) and isinstance(entry[0], str):
            first = em.fresh("first") if ops.is_dynamic_slice(template) else entry[0]
            em.line(f"{first} = max({entry[0]}, 0)")
            out.append((first, None, entry[2]))
        else:
            out.append(entry)
    return tuple(out)


@lowering(ops.dyn_setitem)
def _dyn_setitem(em: Emitter, node: Node) -> None:
    x, v, *dyn = node.inputs
    index = node.attrs["index"]
    counts: dict[int, str] = {}
    entries = _dynamic_entries(em, x, index, dyn, node.loc, counts)
    region = _region_dims(em, x, index, counts)
    name = em.define(node.output)
    em.line(f"{name} = {em(x)}" if em.can_overwrite(x, node) else f"{name} = {em(x)}.copy()")
    _store_loop(em, name, x, entries, v, region)


@lowering(ops.check)
def _check(em: Emitter, node: Node) -> None:
    (ok,) = node.inputs
    with em.block(f"if not {em(ok)}:"):
        em.line(f"raise {node.attrs['error']}({node.attrs['message']!r})")
    em.line(f"{em.define(node.output)} = {em(ok)}")


@lowering(ops.dim_size)
def _dim_size(em: Emitter, node: Node) -> None:
    (x,) = node.inputs
    size = extent(em, x, node.attrs["axis"])
    em.line(f"{em.define(node.output)} = np.int64({size})")
