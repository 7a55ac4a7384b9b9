"""The lowering registry, run-time extents and loop nests.

``LOWERINGS`` maps each op to a function writing its statements into the
Emitter. Elementwise ops (those with a scalar rule) lower to a ``LoopNest``:
an iteration space, loads with broadcasting, scalar statements and stores;
fusion grows one LoopNest over many elementwise nodes. Extents of
dimensions known only at run time are read off arrays that exist.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from jitaic.errors import CompileError, at
from jitaic.ir import ops
from jitaic.ir.graph import Node, Value
from jitaic.ir.lengths import length_key
from jitaic.ir.ops import Op
from jitaic.lower import loop_ir
from jitaic.lower.codegen import Emitter, Extent, empty, int_max, int_min, known_size
from jitaic.lower.kernels.scalar import (
    SCALAR_RULES,
    magnitude_comparison,
    magnitude_expression,
    scalar_expression,
)


def extent(em: Emitter, v: Value, axis: int) -> Extent:
    """Axis ``axis`` of ``v``: its static length, or source text for it (an
    elementwise result's run-time extent is its operands' broadcast length:
    ``check_extents`` lets only a length of 1 differ, and it stretches)."""
    d = v.shape[axis]
    if d is not None:
        return d
    if (id(v), axis) in em.view_extents:
        return em.view_extents[id(v), axis]
    if em.has(v) and v.type.ndim:
        return f"{em(v)}.shape[{axis}]"
    node = v.producer
    if node is not None and node.op is ops.broadcast_like:
        return extent(em, node.inputs[1], axis)  # like's shape
    if node is not None and node.op in SCALAR_RULES:  # elementwise: broadcast inputs
        back = v.type.ndim - axis
        sources = {length_key(x, x.type.ndim - back): (x, x.type.ndim - back)
                   for x in node.inputs
                   if x.type.ndim >= back and x.shape[x.type.ndim - back] is None}
        texts = list(dict.fromkeys(str(extent(em, *x)) for x in sources.values()))
        if len(texts) == 1:
            return texts[0]
        if texts:  # each is 1 or the longest; any 0 makes the result empty
            return f"({int_max(*texts)} if {int_min(*texts)} else 0)"
    raise CompileError(f"no run-time extent for axis {axis} of {v.type} made by "
                       f"{node.op.name if node else 'a parameter'} (a jitaic bug)")


def dims(em: Emitter, v: Value) -> tuple[Extent, ...]:
    return tuple(extent(em, v, k) for k in range(v.type.ndim))


@contextlib.contextmanager
def each_lane(em: Emitter, x: Value, axis: int, work: int = 0):
    """Loops over the lanes of ``x`` along ``axis``; yields a lane's subscript."""
    index = [em.fresh(f"i{d}") for d in range(x.type.ndim)]
    with em.loops([(index[d], extent(em, x, d)) for d in range(x.type.ndim) if d != axis],
                  work):
        yield ", ".join(":" if d == axis else index[d] for d in range(x.type.ndim))


def check_extents(em: Emitter, v: Value, domain: tuple[Extent, ...], what: str,
                  loc: object, stretch: bool = False, proven: Collection[int] = ()) -> None:
    """Raise at run time where a run-time extent of ``v`` and the extent it is
    broadcast against differ (NumPy's broadcasting error, naming the user's
    line ``loc``). With ``stretch`` (``load`` reads ``v`` against ``domain``)
    a run-time extent of ``v`` that turns out to be 1 stretches, as NumPy's
    does; the domain's own extents (the result's) do not. ``proven``: axes of
    ``v`` whose lengths are the domain's whatever they are (``extents``)."""
    offset = len(domain) - v.type.ndim
    for k, d in enumerate(v.shape):
        target = domain[offset + k]
        if d == 1 or (d is not None and not isinstance(target, str)) or k in proven:
            continue
        mine = extent(em, v, k)
        if str(mine) == str(target):
            continue
        differ = f"{mine} != {target}"
        if stretch and d is None:
            stretches(em, v, k, mine)
            differ += f" and {mine} != 1"
        with em.if_(differ):
            em.raise_(f"rt.LengthsDiffer({what!r}, {mine}, {target}, {at(loc)!r})")


def broadcast_failure(node: Node) -> str:
    """What a run-time length mismatch among an elementwise node's operands
    says, as NumPy words it for the call the user wrote."""
    if node.op is ops.broadcast_like:  # np.broadcast_to (or a gradient's unbroadcast)
        return "operands could not be broadcast together with remapped shapes"
    return f"operands could not be broadcast together in {node.op.name}"


def stretches(em: Emitter, v: Value, axis: int, n: Extent) -> None:
    """Let ``v``'s axis of run-time length ``n`` stretch where n is 1: loads
    step through it by a stride of 0 then (a loop-invariant stride, which
    LLVM's vectoriser versions on being 1; a select per load it cannot)."""
    unit = em.fresh("unit")
    em.line(f"{unit} = np.int64({n} != 1)")
    em.stretched[id(v), axis] = unit


def check_index(em: Emitter, i: str, n: Extent, axis: int, loc: object) -> None:
    """Raise NumPy's IndexError, naming the user's line, where the run-time
    index ``i`` (negative ones count from the end) is outside an axis of ``n``."""
    em.emit(loop_ir.IndexCheck(i, n, axis, at(loc)))


@dataclass
class LoopNest:
    """A kernel: loops over ``domain`` running scalar statements, then stores.

    The statements assign scalar temporaries; ``stores`` write named outputs.
    """

    domain: tuple[Extent, ...]
    index: tuple[str, ...]
    statements: list[tuple[str, str]] = field(default_factory=list)  # (scalar, expr)
    stores: list[tuple[str, str]] = field(default_factory=list)  # (array, scalar expr)
    cost: int = 1  # of one element, in simple arithmetic ops (element_cost)
    order: tuple[int, ...] | None = None  # the loops' axes, outermost first (None: 0, 1, ...)

    def work(self) -> int | None:
        """Elements times their cost (for the parallel threshold); None at run time."""
        size = known_size(self.domain)
        return None if size is None else size * self.cost


def element_cost(nodes: Sequence[Node]) -> int:
    """The cost of one element of a loop running ``nodes`` (1 for plain arithmetic)."""
    return 1 + sum(ops.ELEMENT_COST.get(n.op, 0) for n in nodes)


def load(em: Emitter, value: Value, nest: LoopNest, name: str | None = None) -> str:
    """The element of ``value`` (held in ``name``, default its own) at the nest's
    index, broadcasting size-1 dims. Elements of a slice view are read from the
    sliced array itself (``u[1 + i, j]``, not ``view[i, j]``): LLVM vectorises
    loads from a contiguous base, not through a strided view."""
    if value.type.ndim == 0:
        return name or em(value)
    offset = len(nest.domain) - value.type.ndim
    subs = ["0" if d == 1 else _stretched(em, value, j, nest.index[offset + j])
            for j, d in enumerate(value.shape)]
    if name is None:
        value, subs = _through_views(em, value, subs)
        if value.type.ndim == 0:  # a broadcast scalar
            return em(value)
    return f"{name or em(value)}[{', '.join(subs)}]"


def _stretched(em: Emitter, value: Value, axis: int, i: str) -> str:
    """The subscript of ``value``'s axis at loop index ``i``: 0 where a run-time
    extent turned out to be 1 and stretches (``stretches``)."""
    unit = em.stretched.get((id(value), axis))
    return i if unit is None else f"{i} * {unit}"


def _through_views(em: Emitter, value: Value, subs: list[str]) -> tuple[Value, list[str]]:
    """The array a chain of basic-index views reads from, and the subscripts
    there of the view's element at ``subs`` (views with run-time indices use
    the first indices their lowering normalised: ``em.view_starts``)."""
    node = value.producer
    while node is not None and id(value) not in em.copied and (node.op is ops.broadcast_to or (
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
        emit_element(em, nest)


def emit_element(em: Emitter, nest: LoopNest) -> None:
    """The nest's statements and stores for one element (at ``nest.index``)."""
    for target, expr in nest.statements:
        em.assign(target, expr)
    for array, expr in nest.stores:
        em.store(array, nest.index, expr)


def lower_elementwise(em: Emitter, node: Node) -> None:
    out = node.output
    if out.type.ndim == 0:
        _lower_scalar(em, node)
        return
    domain = dims(em, out)
    for v in node.inputs:
        check_extents(em, v, domain, broadcast_failure(node), node.loc, stretch=True)
    name = em.define(out)
    nest = LoopNest(domain, tuple(em.fresh(f"i{d}") for d in range(out.type.ndim)))
    expr = scalar_expression(node, [load(em, v, nest) for v in node.inputs])
    nest.stores.append((name, expr))
    em.assign(name, empty(domain, out.dtype))
    render(em, nest)


def _lower_scalar(em: Emitter, node: Node) -> None:
    """A 0-d elementwise node as one statement. A complex magnitude is pure
    (dropped where nothing reads it): a comparison of it with a constant
    tests re**2 + im**2 first (``magnitude_comparison``), as in kernels."""
    magnitude = magnitude_comparison(node)
    if magnitude is not None:
        absolute, order, c = magnitude
        expr = magnitude_expression(absolute, order, c, em(absolute.inputs[0]))
    else:
        expr = scalar_expression(node, [em(v) for v in node.inputs])
    if node.op is ops.absolute:
        em.pure(em.define(node.output), expr)
    else:
        em.line(f"{em.define(node.output)} = {expr}")


Lowering = Callable[[Emitter, Node], None]


LOWERINGS: dict[Op, Lowering] = {}


lowering = ops.registrar(LOWERINGS, "lowering")


for _op in SCALAR_RULES:
    lowering(_op)(lower_elementwise)
