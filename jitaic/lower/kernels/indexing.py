"""Shapes, views and indexing: reshape/transpose/broadcast as views, basic
and run-time-bounded slices with their bounds checks, stores as explicit
loops, gather/scatter, boolean masks, concatenation.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from jitaic.ir import ops
from jitaic.ir.graph import Node, Value
from jitaic.ir.lengths import proven_axes, window_keys
from jitaic.ir.ops import slice_shape
from jitaic.lower.codegen import (
    Emitter,
    Extent,
    cast,
    contiguous,
    copy_of,
    empty,
    full,
    index_text,
    int64_shape,
    int_max,
    int_min,
    known_size,
    shape_text,
)
from jitaic.lower.kernels.loops import (
    LoopNest,
    check_extents,
    check_index,
    dims,
    extent,
    load,
    lowering,
    stretches,
)
from jitaic.lower.kernels.scalar import SCALAR_RULES


@lowering(ops.reshape)
def _reshape(em: Emitter, node: Node) -> None:
    (x,) = node.inputs
    out = node.output
    if out.type.ndim == 0:  # size-1 array -> scalar
        em.view(out, f"{em(x)}[{', '.join(['0'] * x.type.ndim) or '()'}]")
    elif x.type.ndim == 0:
        em.line(f"{em.define(out)} = {full(out.shape, em(x), out.dtype)}")
    else:
        moved = node.attrs.get("from_axes") or (None,) * out.type.ndim  # run-time extents
        shape = tuple(d if d is not None else extent(em, x, moved[k])
                      for k, d in enumerate(out.shape))
        source = em(x) if em.layout(x) == "C" else contiguous(em(x))
        em.view(out, f"{source}.reshape({shape_text(shape)})")


@lowering(ops.transpose)
def _transpose(em: Emitter, node: Node) -> None:
    (x,) = node.inputs
    perm = node.attrs["perm"]
    reversed_axes = list(perm) == list(range(x.type.ndim))[::-1]
    layout = {"C": "F", "F": "C"}.get(em.layout(x), "A") if reversed_axes else "A"
    if x.type.ndim <= 1:
        em.alias(node.output, em(x), em.layout(x))
        return
    # x.T where it will do: numba types np.transpose(x, perm) as layout "A",
    # which sends np.dot down a copying slow path (4x on a matrix-vector
    # product). Other permutations are a view with permuted strides: numba's
    # np.transpose checks the axes with formatted error messages, 0.1-0.2 s
    # of its compile per call (an n-body step transposes three columns).
    if reversed_axes:
        em.view(node.output, f"{em(x)}.T", layout)
        return
    shape = int64_shape(tuple(extent(em, x, d) for d in perm))
    strides = int64_shape(tuple(f"{em(x)}.strides[{d}]" for d in perm))
    em.view(node.output, f"rt.as_strided({em(x)}, {shape}, {strides})", "A")


@lowering(ops.broadcast_to)
def _broadcast_to(em: Emitter, node: Node) -> None:
    (x,) = node.inputs
    out = node.output
    if x.type.ndim == 0:
        em.line(f"{em.define(out)} = {full(out.shape, em(x), out.dtype)}")
    else:
        em.view(out, f"rt.broadcast_to({em(x)}, {int64_shape(out.shape)})", "A")


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
    if id(out) in em.copied:  # a later store overwrites x in place
        view = f"{em(x)}[{index_text(index) or '...'}]"
        em.line(f"{em.define(out)} = {copy_of(view)}")
        return
    if not index:
        em.alias(out, em(x), em.layout(x))
        return
    layout = _view_layout(em, x, index)
    em.view(out, f"{em(x)}[{index_text(index)}]", layout)


def _store_loop(em: Emitter, name: str, x: Value, index: tuple, v: Value, loc: object,
                target: tuple[Extent, ...] | None = None, proven: Collection[int] = ()
                ) -> None:
    """``name[index] = v`` as explicit loops over the ``target`` region's shape
    (numba compiles its generic slice assignment about ten times slower); ints
    and slice starts in ``index`` may be names of run-time values; ``proven``:
    axes of ``v`` as long as the region's whatever their lengths."""
    target = slice_shape(x.shape, index) if target is None else target
    if v.type.ndim and (v is x or v.producer is None or ops.VIEW in v.producer.op.traits):
        # the value may be a view of the target's own memory (x[::-1] = x):
        # NumPy copies overlapping sources first, and so must we
        source = em.fresh("source")
        em.line(f"{source} = {copy_of(em(v))}")
    else:
        source = None
    check_extents(em, v, target, "could not broadcast input array into the assigned region", loc,
                  stretch=True, proven=proven)
    loop_vars = tuple(em.fresh(f"i{d}") for d in range(len(target)))
    it = iter(loop_vars)
    subscript = [f"{e[0]} + {e[2]} * {next(it)}" if isinstance(e, tuple) else str(e)
                 for e in index]
    subscript += list(it)  # trailing dimensions the index leaves whole
    with em.loops(list(zip(loop_vars, target, strict=True))):
        em.line(f"{name}[{', '.join(subscript) or '()'}] = "
                f"{load(em, v, LoopNest(target, loop_vars), source)}")


def region_view(em: Emitter, store: Node, v: Value) -> None:
    """Define ``v`` as a view of the region ``store`` writes, for a kernel
    that writes its elements there itself (in_place._destinations); run-time
    indices are checked here, before the kernel runs."""
    x, _, *dyn = store.inputs
    index = store.attrs["index"]
    if store.op is ops.setitem:
        subscript, layout = index_text(index), _view_layout(em, x, index)
    else:
        subscript = index_text(_dynamic_entries(em, x, index, dyn, store.loc))
        layout = "A"
    em.line(f"{em.define(v, layout=layout)} = {em(x)}[{subscript}]")


def _written_by_its_kernel(em: Emitter, node: Node) -> bool:
    """The stored value is a view of the region: its kernel wrote it there."""
    if em.destinations.get(id(node.inputs[1])) is not node:
        return False
    em.alias(node.output, em(node.inputs[0]), em.layout(node.inputs[0]))
    return True


@lowering(ops.setitem)
def _setitem(em: Emitter, node: Node) -> None:
    x, v = node.inputs
    index = node.attrs["index"]
    out = node.output
    if _written_by_its_kernel(em, node):
        return
    if x.type.ndim == 0:
        em.line(f"{em.define(out)} = {cast(em(v), v.dtype, out.dtype)}")
        return
    name = em.define(out)
    if em.can_overwrite(x, node):
        em.line(f"{name} = {em(x)}")
    else:
        em.line(f"{name} = {copy_of(em(x))}")
    _store_loop(em, name, x, index, v, node.loc)


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
        check_extents(em, v, index_dims,
                      "shape mismatch: indexing arrays could not be broadcast together", node.loc)
    shape = ops.gather_shape(dims(em, x), index_dims, node.attrs["axes"], node.attrs["front"])
    _check_indices_of_an_empty_region(em, node, x, indices, shape)
    return shape


def _check_indices_of_an_empty_region(em: Emitter, node: Node, x: Value,
                                      indices: Sequence[Value],
                                      shape: tuple[Extent, ...]) -> None:
    """NumPy checks every index even when the region it selects is empty
    (``a[b]`` with ``a`` of shape (0, 0)): the element loops then run no
    iteration and check nothing, so the index arrays get a loop of their own,
    run only when another extent of the region is zero."""
    b_shape = _index_dims(em, indices)
    b_start = 0 if node.attrs["front"] else node.attrs["axes"][0]
    others = [d for k, d in enumerate(shape) if not b_start <= k < b_start + len(b_shape)]
    if 0 in b_shape or not any(d == 0 or isinstance(d, str) for d in others):
        return
    run_time = [str(d) for d in others if isinstance(d, str)]
    empty_region = "True" if 0 in others else f"{' * '.join(run_time)} == 0"
    b_vars = tuple(em.fresh(f"b{d}") for d in range(len(b_shape)))
    with em.if_(empty_region), em.loops(list(zip(b_vars, b_shape, strict=True))):
        for axis, v in zip(node.attrs["axes"], indices, strict=True):
            j = em.fresh("j")
            em.assign(j, f"np.int64({load(em, v, LoopNest(b_shape, b_vars))})")
            check_index(em, j, extent(em, x, axis), axis, node.loc)


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
        with em.if_(f"{j} < 0"):
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
    check_extents(em, v, target, "shape mismatch: value array could not be broadcast to indexing "
                  "result", node.loc, stretch=True)
    name = em.define(node.output)
    em.line(f"{name} = {em(x)}" if em.can_overwrite(x, node) else f"{name} = {copy_of(em(x))}")
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
    with em.if_(f"{count} * {SPARSE_MASK} < {shape[0]}"):
        em.line(f"{words} = rt.mask_words({em(mask)})")
        with em.for_(w, f"{words}.shape[0]"):
            with em.if_(f"{words}[{w}] != 0"):
                with em.for_(m, f"{w} * 8 + 8", start=f"{w} * 8"):
                    yield from _if_true(em, mask, shape, row, index)
        with em.for_(m, shape[0], start=f"{words}.shape[0] * 8"):
            yield from _if_true(em, mask, shape, row, index)
    with em.else_():
        yield from _each_true_entry(em, mask, shape, row, index)


def _each_true_entry(em: Emitter, mask: Value, shape: tuple[Extent, ...], row: str,
                     index: tuple[str, ...]):
    with em.loops(list(zip(index, shape, strict=True))):
        yield from _if_true(em, mask, shape, row, index)


def _if_true(em: Emitter, mask: Value, shape: tuple[Extent, ...], row: str,
             index: tuple[str, ...]):
    with em.if_(load(em, mask, LoopNest(shape, index))):
        yield index
        em.line(f"{row} += 1")


@lowering(ops.compress)
def _compress(em: Emitter, node: Node) -> None:
    x, mask = node.inputs
    shape = dims(em, x)
    check_extents(em, mask, shape[:mask.type.ndim], "boolean index", node.loc)
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
    check_extents(em, mask, shape[:mask.type.ndim], "boolean index", node.loc)
    rest = shape[mask.type.ndim:]
    name = em.define(node.output)
    em.line(f"{name} = {em(x)}" if em.can_overwrite(x, node) else f"{name} = {copy_of(em(x))}")
    source = em(v)
    if v.type.ndim > len(rest) and v.shape[0] != 1:  # one row of v per true entry
        count = _count_true(em, mask, shape[:mask.type.ndim])
        rows = extent(em, v, 0)
        differ = f"{count} != {rows}"
        if v.shape[0] is None:  # a run-time length of 1 stretches
            stretches(em, v, 0, rows)
            differ += f" and {rows} != 1"
        with em.if_(differ):
            em.raise_(f"rt.MaskAssignCount({rows}, {count})")
        if v.producer is None or ops.VIEW in v.producer.op.traits:  # may share x's memory
            source = em.fresh("source")
            em.line(f"{source} = {copy_of(em(v))}")
    row, inner = em.fresh("row"), tuple(em.fresh(f"r{d}") for d in range(len(rest)))
    for index in _each_true(em, mask, shape[:mask.type.ndim], row):
        with em.loops(list(zip(inner, rest, strict=True))):
            element = load(em, v, LoopNest(("?", *rest), (row, *inner)), source)
            em.line(f"{name}[{', '.join((*index, *inner))}] = {element}")


@lowering(ops.concatenate)
def _concatenate(em: Emitter, node: Node) -> None:
    """One copying loop nest per operand. Not numba's slice assignment
    ``out[:, 0:1] = v``: its shape check formats an error message, whose
    string code costs 0.2 s of numba's compile for each one."""
    out, axis = node.output, node.attrs["axis"]
    name = em.define(out)
    em.line(f"{name} = {empty(out.shape, out.dtype)}")
    start = 0
    for v in node.inputs:
        index = tuple(em.fresh(f"c{d}") for d in range(out.type.ndim))
        with em.loops(list(zip(index, v.shape, strict=True)), known_size(v.shape)):
            target = [f"{start} + {i}" if d == axis and start else i for d, i in enumerate(index)]
            em.store(name, target, cast(load(em, v, LoopNest(v.shape, index)), v.dtype, out.dtype))
        start += v.shape[axis]


def _index_name(em: Emitter, v: Value) -> str:
    """A run-time index or slice bound as a signed integer: numba turns an
    unsigned one plus an int into a float. Unsigned values beyond int64 are
    clamped to its maximum, out of bounds of any axis, as they are in NumPy."""
    if v.dtype.kind != "u":
        return em(v)
    name = em.fresh("index")
    em.line(f"{name} = np.int64({int_min(em(v), f'np.uint64({np.iinfo(np.int64).max})')})")
    return name


def _slice_fits(em: Emitter, start: Value, span: int, n: Extent) -> bool:
    """Whether a run-time slice of ``span`` elements from ``start`` lies in a
    static axis of ``n`` (ir.int_ranges)."""
    bounds = em.ranges.of(start)
    return isinstance(n, int) and bounds is not None and bounds[0] >= 0 \
        and bounds[1] + span <= n


def _dynamic_entries(em: Emitter, x: Value, index: tuple, dyn: Sequence[Value],
                     loc: object = None, counts: dict[int, str] | None = None,
                     check: bool = True) -> tuple:
    """The index template with run-time names filled in; a dynamic slice becomes
    (start name, stop text, step) after a check that it fits the axis. A RANGE
    becomes a slice numba resolves (a view), or, given ``counts``, its first
    index and length (Python's rules, through rt.slice_range): a store region."""
    starts = _start_values(index, dyn)  # for their bounds (ir.int_ranges)
    names = iter(_index_name(em, v) for v in dyn)
    out = []
    for dim, e in enumerate(index):
        if e == ops.DYNAMIC:
            out.append(next(names))
            if check and not em.ranges.within(starts[dim], extent(em, x, dim)):
                check_index(em, out[-1], extent(em, x, dim), dim, loc)
        elif ops.is_dynamic_slice(e):
            _, length, step = e
            start, n = next(names), extent(em, x, dim)
            fits = _slice_fits(em, starts[dim], ops.slice_span(length, step), n)
            if length and check and not fits:
                with em.if_(f"{start} < 0 or {start} + {ops.slice_span(length, step)} > {n}"):
                    where = f" at {loc}" if loc else ""
                    em.raise_(f"rt.SliceOutside({length}, {dim}, {n}, {where!r})")
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
            # int64 arguments, never literals: numba compiles a helper anew
            # for every literal value it is called with
            bounds = ", ".join(f"np.int64({b})" for b in (start, stop, step, size))
            em.pure(f"{first}, {count}", f"rt.slice_range({bounds})")
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
    subscript = index_text(_dynamic_entries(em, x, index, dyn, node.loc,
                                            check=not node.attrs.get("bounded")))
    if id(out) in em.copied:  # a later store overwrites x in place
        em.line(f"{em.define(out)} = {copy_of(f'{em(x)}[{subscript}]')}")
        return
    em.view(out, f"{em(x)}[{subscript}]", "A")
    if out.type.ndim:
        counts: dict[int, str] = {}
        em.view_starts[id(out)] = _normalised_starts(em, x, index, dyn, counts)
        _record_view_extents(em, out, x, index, counts)


def _record_view_extents(em: Emitter, out: Value, x: Value, index: tuple,
                         counts: dict[int, str]) -> None:
    """The view's run-time extents as the names its lowering computed (a
    window's count, x's trailing extents), so loops over it need not read
    ``view.shape``: a view that kernels read through its base array is then
    dropped, and numba types and lowers one array fewer."""
    axis = 0
    for dim, entry in enumerate(index):
        if isinstance(entry, tuple):
            if ops.is_range(entry):
                em.view_extents[id(out), axis] = counts[dim]
            axis += 1
    for dim in range(len(index), x.type.ndim):
        if x.shape[dim] is None:
            em.view_extents[id(out), axis] = extent(em, x, dim)
        axis += 1


def _normalised_starts(em: Emitter, x: Value, index: tuple, dyn: Sequence[Value],
                       counts: dict[int, str]) -> tuple:
    """The view's index with each run-time entry as a non-negative first index,
    so kernels can read the viewed array itself (``x[i, first + j]``): LLVM
    vectorises loads from a contiguous base, not through a strided view. The
    ``max(..., 0)`` is a no-op for valid indices that tells LLVM the index is
    non-negative (numba would otherwise check for wraparound on every load).
    Fills ``counts``: the length of each window (a RANGE) by axis."""
    entries = _dynamic_entries(em, x, index, dyn, None, counts, check=False)
    starts = _start_values(index, dyn)
    out = []
    for dim, (template, entry) in enumerate(zip(index, entries, strict=True)):
        if template == ops.DYNAMIC:
            if em.ranges.non_negative_within(starts[dim], extent(em, x, dim)):
                out.append(entry)
                continue
            first = em.fresh("row")
            em.pure(first, int_max(f"({entry} + {extent(em, x, dim)} if {entry} < 0 else {entry})",
                                   0))
            out.append(first)
        elif isinstance(template, tuple) and isinstance(entry[0], str):
            bounds = em.ranges.of(starts[dim]) if ops.is_dynamic_slice(template) else None
            if bounds is not None and bounds[0] >= 0:
                out.append((entry[0], None, entry[2]))
                continue
            first = em.fresh("first")
            em.pure(first, int_max(entry[0], 0))
            out.append((first, None, entry[2]))
        else:
            out.append(entry)
    return tuple(out)


def _start_values(index: tuple, dyn: Sequence[Value]) -> dict[int, Value]:
    """The run-time index, or run-time slice start, of each axis that has one
    (a range's run-time bounds are passed over)."""
    values = iter(dyn)
    starts = {}
    for dim, e in enumerate(index):
        if e == ops.DYNAMIC or ops.is_dynamic_slice(e):
            starts[dim] = next(values)
        elif ops.is_range(e):
            for _ in range(sum(bound == ops.DYNAMIC for bound in e[1:3])):
                next(values)
    return starts


@lowering(ops.dyn_setitem)
def _dyn_setitem(em: Emitter, node: Node) -> None:
    if _written_by_its_kernel(em, node):
        return
    x, v, *dyn = node.inputs
    index = node.attrs["index"]
    counts: dict[int, str] = {}
    entries = _dynamic_entries(em, x, index, dyn, node.loc, counts)
    region = _region_dims(em, x, index, counts)
    keys = window_keys(x.shape, index, dyn)
    keys += [None] * (len(region) - len(keys))  # the axes the index leaves whole
    name = em.define(node.output)
    em.line(f"{name} = {em(x)}" if em.can_overwrite(x, node) else f"{name} = {copy_of(em(x))}")
    _store_loop(em, name, x, entries, v, node.loc, region, proven_axes(v, keys))
