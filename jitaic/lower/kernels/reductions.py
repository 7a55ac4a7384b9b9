"""Reductions and scans: sum/prod/max/min/any/all as loops over a monoid
(float sums in NumPy's pairwise order, over buffered chunks of a row),
argmax/argmin, and the cumulative scans.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from jitaic.errors import at
from jitaic.ir import ops
from jitaic.ir.graph import Node
from jitaic.ir.ops import Op
from jitaic.lower import loop_ir, runtime
from jitaic.lower.codegen import (
    Emitter,
    Extent,
    astype,
    cast,
    empty,
    full,
    int64_shape,
    known_size,
    literal,
    np_type,
    shape_text,
    zeros,
)
from jitaic.lower.kernels.loops import LoopNest, dims, emit_element, load, lowering


@dataclass(frozen=True)
class Monoid:
    combine: Callable[[str, str], str]  # (accumulator, element) -> new accumulator
    buffered: str | None = None  # runtime helper reducing a float buffer, reassociated
    # the accumulator's start for a dtype; None: the op's identity
    init: Callable[[np.dtype], str] | None = None
    complex_combine: Callable[[str, str], str] | None = None  # where complex differs

    def combine_for(self, dtype: np.dtype) -> Callable[[str, str], str]:
        return self.complex_combine if dtype.kind == "c" and self.complex_combine \
            else self.combine


def _extreme(sign: int) -> Callable[[np.dtype], str]:
    """max/min have no identity: they start from the dtype's lowest/highest value."""
    def init(dtype: np.dtype) -> str:
        if dtype == np.bool_:
            return literal(sign < 0, dtype)
        if dtype.kind == "f":
            return literal(-sign * np.inf, dtype)
        if dtype.kind == "c":  # below (above) every value in NumPy's complex order
            return literal(complex(-sign * np.inf, -sign * np.inf), dtype)
        info = np.iinfo(dtype)
        return literal(info.min if sign > 0 else info.max, dtype)

    return init


MONOIDS: dict[Op, Monoid] = {
    ops.reduce_sum: Monoid(lambda acc, v: f"{acc} + {v}", "pairwise"),
    ops.reduce_prod: Monoid(lambda acc, v: f"{acc} * {v}", "rt.prod_reassoc"),
    ops.reduce_max: Monoid(lambda acc, v: f"rt.maximum({acc}, {v})", init=_extreme(+1),
                           complex_combine=lambda acc, v: f"cm.maximum({acc}, {v})"),
    ops.reduce_min: Monoid(lambda acc, v: f"rt.minimum({acc}, {v})", init=_extreme(-1),
                           complex_combine=lambda acc, v: f"cm.minimum({acc}, {v})"),
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

    def combine_into(slot: str) -> None:
        """The element's statements and stores, then the element combined into ``slot``."""
        emit_element(em, nest)
        em.assign(slot, monoid.combine_for(acc_dtype)(slot, element))

    out_shape = tuple(shape[d] if d in kept else 1 for d in range(x.type.ndim)) \
        if keepdims else tuple(shape[d] for d in kept)
    if trailing:  # kept axes outside, a scalar accumulator inside
        out_index = [index[d] if d in kept else "0" for d in range(x.type.ndim)]
        out_index = out_index if keepdims else [index[d] for d in kept]
        if out.type.ndim:
            em.allocate(f"{name} = {empty(out_shape, out.dtype)}")
        outer = [(index[d], shape[d]) for d in kept]
        length = shape[-1] if x.type.ndim else 1
        # complex sums too: NumPy's are pairwise (its products are sequential)
        pairwise = monoid.buffered == "pairwise" and acc_dtype.kind in "fc"
        if isinstance(length, str):  # a run-time row length: one buffer of that length
            buffered = "pairwise" if pairwise else None
            chunk = length
        else:
            buffered = monoid.buffered if (pairwise or acc_dtype.kind == "f") and length > 1 \
                else None
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
        allocation = f"rt.empty({int64_shape((chunk,))}, {np_type(acc_dtype)})"
        if buffered and isinstance(chunk, str) and not in_place:
            em.assign(buf, allocation)
        whole = not outer and (len(axes) == 1 or flat)  # the whole array to a scalar

        def reduce_row() -> None:
            """The last axis (all axes, flat) through the buffer."""
            with em.capture() as statements:
                emit_element(em, nest)
            helper = "cm.pairwise_sum" if acc_dtype.kind == "c" else "rt.pairwise_sum"
            if buffered == "pairwise":
                runtime.register_pairwise_tree(acc_dtype)  # before the kernel compiles or loads
            # int64 counts: numba would compile the helper anew for each literal one
            reduced = (f"{helper}({buf}, np.int64(0), np.int64({{count}}), "
                       f"{literal(0, acc_dtype)})"
                       if buffered == "pairwise" else f"{buffered}({buf}, np.int64({{count}}))")
            em.emit(loop_ir.Reduce(
                acc, monoid.combine_for(acc_dtype)("{0}", "{1}"), reduced, buffered == "pairwise",
                np_type(acc_dtype), index[-1], length, chunk, buf, element,
                None if in_place else statements,
                list(zip(index, shape, strict=True)) if flat else None,
                allocation if whole and not isinstance(chunk, str) else None, whole,
                acc_dtype.kind == "c"))

        with em.loops(outer, nest.work()):
            em.assign(acc, _initial(node.op, acc_dtype))
            if buffered and not isinstance(chunk, str) and not whole:
                em.scratch(f"{buf} = {allocation}")
            if flat:
                reduce_row()
            else:
                with em.loops([(index[d], shape[d]) for d in axes[:-1]]):
                    if buffered:
                        reduce_row()
                    else:
                        with em.loops([(index[d], shape[d]) for d in axes[-1:]]):
                            combine_into(acc)
            result = cast(acc, acc_dtype, out.dtype)
            if out.type.ndim:
                em.store(name, out_index, result)
            else:
                em.assign(name, result)
        return
    # Reduced axes in the middle: sweep the input in memory order and
    # accumulate into an array over the kept axes.
    em.assign(acc, full(tuple(shape[d] for d in kept), _initial(node.op, acc_dtype), acc_dtype))
    with em.loops([(index[d], shape[d]) for d in range(x.type.ndim)]):
        combine_into(f"{acc}[{', '.join(index[d] for d in kept)}]")
    # (astype copies even to the same dtype)
    converted = acc if acc_dtype == out.dtype else astype(acc, out.dtype)
    em.assign(name, f"{converted}.reshape({shape_text(out_shape)})")


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
        with em.if_(f"{' * '.join(run_time)} == 0"):
            em.raise_(f"ValueError({ops.empty_reduction_message(op)!r})")


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


@lowering(ops.argmax, ops.argmin)
def _arg_reduction(em: Emitter, node: Node) -> None:
    (x,) = node.inputs
    out, axis, keepdims = node.output, node.attrs["axis"], node.attrs["keepdims"]
    better = ">" if node.op is ops.argmax else "<"
    name = em.define(out)
    if x.type.ndim == 0:
        em.line(f"{name} = np.int64(0)" if out.type.ndim == 0 else
                f"{name} = {zeros(out.shape, np.int64)}")
        return
    index = [em.fresh(f"i{d}") for d in range(x.type.ndim)]
    best, pos, count = em.fresh("best"), em.fresh("pos"), em.fresh("k")
    element = f"{em(x)}[{', '.join(index)}]"
    reduced = list(range(x.type.ndim)) if axis is None else [axis]
    kept = [d for d in range(x.type.ndim) if d not in reduced]
    shape = dims(em, x)
    run_time = [str(shape[d]) for d in reduced if isinstance(shape[d], str)]
    if run_time:  # NumPy's error for an empty window, when it runs
        with em.if_(" or ".join(f"{n} == 0" for n in run_time)):
            message = f"attempt to get {node.op.name} of an empty sequence{at(node.loc)}"
            em.raise_(f"ValueError({message!r})")
    if out.type.ndim:
        kept_extents = [1 if d in reduced else shape[d] for d in range(x.type.ndim)]
        em.assign(name, empty(tuple(kept_extents) if keepdims else
                              tuple(shape[d] for d in kept), np.int64))
    with em.loops([(index[d], shape[d]) for d in kept], known_size(shape)):
        first = [("0" if d in reduced else index[d]) for d in range(x.type.ndim)]
        em.assign(best, f"{em(x)}[{', '.join(first)}]")
        em.assign(pos, "0")
        em.assign(count, "0")
        with em.loops([(index[d], shape[d]) for d in reduced]):
            # First occurrence wins; the first NaN wins over every number.
            if x.dtype.kind == "c":  # NumPy's complex order (lower/complexmath.py)
                pair = (best, element) if node.op is ops.argmax else (element, best)
                test = (f"cm.less({pair[0]}, {pair[1]}) or "
                        f"(cm.isnan({element}) and not cm.isnan({best}))")
            else:
                test = (f"{element} {better} {best} or "
                        f"({element} != {element} and {best} == {best})")
            with em.if_(test):
                em.assign(best, element)
                em.assign(pos, count)
            em.line(f"{count} += 1")
        if out.type.ndim == 0:
            em.assign(name, f"np.int64({pos})")
        else:
            out_index = [("0" if d in reduced else index[d]) for d in range(x.type.ndim)]
            out_index = out_index if keepdims else [index[d] for d in kept]
            em.store(name, out_index, pos)


# (running result, next element, dtype) -> the next running result, per scan
# op; complex extremes in NumPy's order (real part, then imaginary; NaN wins).
SCAN_COMBINE = {
    ops.cumsum: lambda acc, v, dtype: f"{acc} + {v}",
    ops.cumprod: lambda acc, v, dtype: f"{acc} * {v}",
    ops.cummax: lambda acc, v, dtype: f"{_extremes(dtype)}.maximum({acc}, {v})",
    ops.cummin: lambda acc, v, dtype: f"{_extremes(dtype)}.minimum({acc}, {v})",
}


def _extremes(dtype: np.dtype) -> str:
    return "cm" if dtype.kind == "c" else "rt"


@lowering(*SCAN_COMBINE)
def _cumulative(em: Emitter, node: Node) -> None:
    """NumPy's order: each element is the previous result combined with the
    next input (cast to the result dtype first). The scanned axis is a
    sequential loop with the dimensions after it inside (contiguous, so an
    axis-0 scan vectorises across its rows) and those before it outside."""
    (x,) = node.inputs
    out, axis = node.output, node.attrs["axis"]
    shape = dims(em, x)
    name = em.define(out)
    em.assign(name, empty(shape, out.dtype))
    if 0 in shape:
        return
    combine = SCAN_COMBINE[node.op]
    index = [em.fresh(f"i{d}") for d in range(x.type.ndim)]

    def at(position: str) -> str:
        return ", ".join(position if d == axis else index[d] for d in range(x.type.ndim))

    def element(position: str) -> str:
        return f"{np_type(out.dtype)}({em(x)}[{at(position)}])"

    step = index[axis]
    inner = [(index[d], shape[d]) for d in range(axis + 1, x.type.ndim)]
    with em.loops([(index[d], shape[d]) for d in range(axis)]), _nonempty(em, shape[axis]):
        with em.loops(inner):
            em.line(f"{name}[{at('0')}] = {element('0')}")
        with em.for_(step, shape[axis], start=1), em.loops(inner):
            previous = f"{name}[{at(f'{step} - 1')}]"
            em.line(f"{name}[{at(step)}] = {combine(previous, element(step), out.dtype)}")


@contextlib.contextmanager
def _nonempty(em: Emitter, n: Extent):
    """Inside an axis of run-time length, which may be empty: no first element then."""
    if not isinstance(n, str):
        yield
        return
    with em.if_(f"{n} > 0"):
        yield
