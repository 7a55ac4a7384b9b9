"""Undo logs: what a loop's gradient saves of an array the loop changes by
stores only.

An iteration that changes a carried array only by stores into it (a row,
a column, an element: A[i, j] -= ..., cp[:, j] = ...) need not save the
whole array: the recording loop saves what each store overwrites, and its
run-time indices, and the reverse loop rebuilds the array at the start of
iteration t from its value at the end by writing those back, last store
first, into one buffer it carries (in place). The iteration's own stores,
replayed on the rebuilt array, feed nothing but the backpropagation's
bookkeeping and are removed as dead code. Saving O(slice) per iteration
instead of O(array) is what keeps a Cholesky loop's gradient O(n^3).

A nested loop that changes the array by stores only counts as one store
into the region its stores reach (the row i of ``for j in range(i):
A[i, j] -= ...``): the outer loop logs that region, the nested loop's own
gradient logs its stores.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from jitaic.ir import ops
from jitaic.ir.graph import Node, Region, Value
from jitaic.tracer import numpy as tnp
from jitaic.tracer.core import Tracer, current, new_tracer
from jitaic.tracer.numpy.mathematical import clip

_LOOPS = (ops.for_loop, ops.while_loop)


@dataclass(frozen=True, eq=False)
class Write:
    """One step of the chain that makes a carried array's new value from its
    old one: a store, or a nested loop that changes the array by stores only.
    Either is logged as the region it may write (``store`` at ``attrs``,
    whose run-time indices are ``values``): a loop's region keeps each axis
    that all its stores index alike with values from outside the loop (the
    row ``A[i, :]`` of ``for j in range(i): A[i, j] -= ...``)."""

    node: Node
    base: int  # where the array is among node's inputs
    store: ops.Op  # setitem or dyn_setitem: writes the logged region back
    attrs: dict
    values: tuple[Value, ...]  # run-time indices, values of the body holding node
    clipped: bool  # a loop's region is read before the loop, which may not run:
    #                its indices are clipped into range, never checked
    logged: tuple[bool, ...] = ()  # per run-time index: saved (else recomputed)
    recipe: tuple[Node, ...] = ()  # the body's nodes that recompute the others
    repeat: bool = False  # an earlier write of the chain wrote this region

    @property
    def entries(self) -> int:
        """How many log entries it makes: the region and the run-time indices
        the reverse cannot recompute; none for a repeated region (undoing the
        earlier write restores it)."""
        return 0 if self.repeat else 1 + sum(self.logged)

    def region_type(self):
        read = ops.READ_OF_STORE[self.store]
        return read.infer([self.node.inputs[self.base].type, *(v.type for v in self.values)],
                          self.attrs, ())[0]


def chains_of(params: list[Value], results: list[Value], body: Region
              ) -> dict[int, list[Write]]:
    """Position -> the body's writes (in order) that make result from param,
    for carried arrays changed by nothing else, each write's region of a
    static shape (a tape row)."""
    chains = {}
    for j, (p, r) in enumerate(zip(params, results, strict=True)):
        chain = _writes(p, r, body, results)
        if chain and all(w.region_type().static for w in chain):
            chains[j] = chain
    return chains


def _writes(p: Value, r: Value, body: Region, results: list[Value]) -> list[Write] | None:
    if p.type.ndim == 0 or [id(x) for x in results].count(id(r)) != 1:
        return None
    produced = {id(o): n for n in body.nodes for o in n.outputs}
    chain, v = [], r
    while v is not p:
        node = produced.get(id(v))
        if node is not None and node.op in ops.READ_OF_STORE:
            write = Write(node, 0, node.op, node.attrs, tuple(node.inputs[2:]), False)
        elif node is not None and node.op in _LOOPS:
            write = _loop_write(node, v.index)
        else:
            return None
        if write is None:
            return None
        chain.append(write)
        v = node.inputs[write.base]
    return _what_to_log(chain[::-1], body)


def _what_to_log(chain: list[Write], body: Region) -> list[Write]:
    """The chain with each write's saved entries decided: a run-time index
    the reverse loop can recompute from the iteration's bindings is not
    saved (a loop index, an outer value, i - 1), and a write into the region
    an earlier write of the chain wrote saves nothing (``A[i, j] -= s;
    A[i, j] /= d`` restores A[i, j] by undoing the first)."""
    saved = _must_save(body)
    out: list[Write] = []
    for w in chain:
        repeat = any(e.store is w.store and e.clipped == w.clipped and e.attrs == w.attrs
                     and all(a is b for a, b in zip(e.values, w.values, strict=True))
                     for e in out)
        logged = tuple(id(v) in saved for v in w.values)
        recipe = _recipe([v for v, log in zip(w.values, logged, strict=True) if not log], body)
        out.append(replace(w, logged=logged, recipe=recipe, repeat=repeat))
    return out


_CANNOT_RECOMPUTE = {ops.EFFECTFUL, ops.ALLOCATES}


def _must_save(body: Region) -> set[int]:
    """Ids of the body's values the reverse loop cannot recompute from its
    bindings (the scalar parameters) and outer values: all but the scalar
    parameters and the pure scalar nodes reading only those."""
    saved = {id(p) for p in body.params if p.type.ndim}
    for node in body.nodes:
        if node.regions or node.op.traits & _CANNOT_RECOMPUTE or node.op.may_raise(node) \
                or len(node.outputs) != 1 \
                or node.output.type.ndim or any(id(v) in saved for v in node.inputs):
            saved.update(id(o) for o in node.outputs)
    return saved


def _recipe(values: list[Value], body: Region) -> tuple[Node, ...]:
    """The body's nodes that compute ``values`` (recomputable ones), in order."""
    needed = {id(v) for v in values}
    recipe = []
    for node in reversed(body.nodes):
        if id(node.outputs[0]) in needed:
            recipe.append(node)
            needed.update(id(v) for v in node.inputs)
    return tuple(reversed(recipe))


def _loop_write(loop: Node, q: int) -> Write | None:
    """Loop output ``q`` as one write, where the loop changes that carried
    array by stores only, into a region of a static shape."""
    body = loop.regions[-1]
    first, offset = (3, 1) if loop.op is ops.for_loop else (0, 0)  # start/stop/step; index
    init = loop.inputs[first + q]
    if sum(v is init for v in loop.inputs) != 1:
        return None
    inner = _writes(body.params[offset + q], body.results[q], body, list(body.results))
    region = _region(inner, loop, init.type.shape) if inner else None
    if region is None:
        return None
    index, values = region
    store = ops.dyn_setitem if values else ops.setitem
    return Write(loop, first + q, store, {"index": index}, values, True)


def _region(writes: list[Write], loop: Node, shape: tuple) -> tuple | None:
    """(index, run-time indices) of a region holding every write's: an axis
    all index alike (a static int or slice, or one value from outside the
    loop) keeps that index, any other is whole."""
    inside = {id(p) for r in loop.regions for p in r.params}
    inside |= {id(o) for r in loop.regions for n in r.walk() for o in n.outputs}
    common = None
    for w in writes:
        axes = _axes(w, len(shape))
        if axes is None:
            return None
        common = axes if common is None else [a if _same(a, b) else None
                                               for a, b in zip(common, axes, strict=True)]
    index, values = [], []
    for extent, axis in zip(shape, common, strict=True):
        if axis is None or axis[0] == "dyn" and id(axis[1]) in inside:
            if extent is None:
                return None
            index.append((0, extent, 1))
        elif axis[0] == "dyn":
            index.append(ops.DYNAMIC)
            values.append(axis[1])
        else:
            index.append(axis[1])
    return tuple(index), tuple(values)


def _axes(w: Write, ndim: int) -> list | None:
    """Per axis of the array, what a write's index is there: ("int", i),
    ("slice", (start, stop, step)), ("dyn", value), or None (varies)."""
    out, values = [], iter(w.values)
    for e in w.attrs["index"]:
        if e == ops.DYNAMIC:
            out.append(("dyn", next(values)))
        elif ops.is_dynamic_slice(e) or ops.is_range(e):
            for _ in range(ops.dynamic_count((e,))):
                next(values)
            out.append(None)
        elif isinstance(e, tuple):
            out.append(("slice", e))
        elif isinstance(e, (int, np.integer)) and not isinstance(e, bool):
            out.append(("int", e))
        else:
            return None
    return out + [None] * (ndim - len(out))


def _same(a: tuple | None, b: tuple | None) -> bool:
    return a is not None and b is not None and a[0] == b[0] \
        and (a[1] is b[1] if a[0] == "dyn" else a[1] == b[1])


def overwritten(write: Write, inputs: list[Value], env: dict[int, Value]) -> list[Tracer]:
    """What a write is about to overwrite (a view: the log must copy it
    before the write runs), and its run-time indices: its log entries.
    ``inputs`` are the replayed node's, ``env`` maps the body's values."""
    if write.repeat:
        return []
    base = inputs[write.base]
    dyn = _positions(write, [env.get(id(v), v) for v in write.values], base.shape)
    old = current().builder.emit(ops.READ_OF_STORE[write.store],
                                 [base, *(d.value for d in dyn)], write.attrs,
                                 loc=write.node.loc).output
    return [new_tracer(old, scalar=False),
            *(d for d, saved in zip(dyn, write.logged, strict=True) if saved)]


def _positions(write: Write, values: list[Value | None], shape: tuple) -> list[Tracer | None]:
    """A write's run-time indices as int64 (clipped into range for a loop's
    region); None stays None."""
    dyn = [None if v is None else tnp.astype(new_tracer(v), np.int64) for v in values]
    if write.clipped:  # a loop's region: every run-time index is one axis's
        extents = [n for n, e in zip(shape, write.attrs["index"], strict=False)
                   if e == ops.DYNAMIC]
        dyn = [None if i is None else clip(tnp.where(i < 0, i + n, i), 0, n - 1)
               for i, n in zip(dyn, extents, strict=True)]
    return dyn


def entry_types(chains: dict[int, list[Write]]) -> list[tuple[tuple[int, ...], np.dtype]]:
    """(shape, dtype) of each log entry, in the order ``overwritten`` makes them."""
    types = []
    for chain in chains.values():
        for w in chain:
            if w.entries:
                old = w.region_type()
                types.append((old.shape, old.dtype))
                types += [((), np.dtype(np.int64))] * (w.entries - 1)
    return types


def element_reads_bypassing(undo: Plan) -> Callable:
    """For the reverse replay: an element read of what a logged store wrote
    (``A[i, j] /= A[j, j]`` right after ``A[i, j] -= ...``) becomes
    ``v if (i, j) == (k, l) else A[k, l]`` on the array before the store.
    The store's output is then read by later stores only, whose outputs the
    backpropagation never reads: dead code, not a copy of the array per
    iteration (the replay must leave the rebuilt array intact)."""
    stores = {id(w.node.outputs[0]): w.node for chain in undo.chains.values() for w in chain
              if w.node.op in ops.READ_OF_STORE}
    written: dict[int, list[Value]] = {}  # replayed store output -> its inputs

    def instead(node: Node, inputs: list[Value]) -> Value | None:
        if id(node.outputs[0]) in stores:
            written[id(node.outputs[0])] = inputs
            return None
        if node.op is not ops.dyn_getitem or node.output.type.ndim:
            return None
        source = stores.get(id(node.inputs[0]))
        if source is None or source.op is not ops.dyn_setitem \
                or id(source.outputs[0]) not in written:
            return None
        base, value, *wrote = written[id(source.outputs[0])]
        read_at = _element_position(node.attrs["index"], inputs[1:], base.shape)
        wrote_at = _element_position(source.attrs["index"], wrote, base.shape)
        if read_at is None or wrote_at is None or value.type.ndim:
            return None
        old = new_tracer(current().builder.emit(ops.dyn_getitem, [base, *inputs[1:]],
                                                node.attrs, (), node.loc).output)
        agree = _same_axes(node.attrs["index"], inputs[1:], source.attrs["index"], wrote)
        same = None
        for a, b, known in zip(read_at, wrote_at, agree, strict=True):
            if not known:
                same = (a == b) if same is None else same & (a == b)
        stored = tnp.astype(new_tracer(value), old.dtype)
        return (stored if same is None else tnp.where(same, stored, old)).value

    return instead


def _element_position(index: tuple, dyn: list[Value], shape: tuple) -> list | None:
    """The element an index names, per axis an int64 in [0, extent) (NumPy's
    wraparound applied); None unless it names one element of a static shape."""
    if len(index) != len(shape) or None in shape:
        return None
    position, k = [], 0
    for entry, extent in zip(index, shape, strict=True):
        if entry == ops.DYNAMIC:
            i = tnp.astype(new_tracer(dyn[k]), np.int64)
            position.append(tnp.where(i < 0, i + extent, i))
            k += 1
        elif isinstance(entry, (int, np.integer)) and not isinstance(entry, bool):
            position.append(tnp.as_tracer(np.int64(entry % extent)))
        else:
            return None
    return position


def _same_axes(index_a: tuple, dyn_a: list[Value], index_b: tuple, dyn_b: list[Value]
               ) -> list[bool]:
    """Per axis of two element indices: whether both name it by the same
    constant or by run-time values computed alike (then they agree whatever
    they are)."""
    def entries(index, dyn):
        found, k = [], 0
        for entry in index:
            if entry == ops.DYNAMIC:
                found.append(dyn[k])
                k += 1
            else:
                found.append(entry)
        return found

    return [ops.computes_same(a, b) if isinstance(a, Value) and isinstance(b, Value)
            else not isinstance(a, Value) and not isinstance(b, Value) and a == b
            for a, b in zip(entries(index_a, dyn_a), entries(index_b, dyn_b), strict=True)]


def entry_offsets(chains: dict[int, list[Write]]) -> dict[int, list[tuple[Write, int]]]:
    """id(node) -> its writes (a loop may change several arrays), each with
    the index of its first entry among the log entries."""
    offsets: dict[int, list[tuple[Write, int]]] = {}
    k = 0
    for chain in chains.values():
        for w in chain:
            offsets.setdefault(id(w.node), []).append((w, k))
            k += w.entries
    return offsets


def _undone(x: Tracer, chain: list[Write], entries: list[Tracer], env: dict[int, Value]
            ) -> Tracer:
    """The carried array before the iteration's writes: ``x`` (after them)
    with each write's region written back, last write first; the indices
    not saved are recomputed from ``env`` (the iteration's bindings)."""
    per_write, k = [], 0
    for w in chain:
        per_write.append(entries[k:k + w.entries])
        k += w.entries
    for w, saved in zip(reversed(chain), reversed(per_write), strict=True):
        if w.repeat:
            continue
        old, *saved_dyn = saved
        saved_dyn = iter(saved_dyn)
        _recompute(w.recipe, env)
        recomputed = _positions(w, [None if logged else env.get(id(v), v)
                                    for v, logged in zip(w.values, w.logged, strict=True)],
                                x.shape)
        dyn = [next(saved_dyn) if logged else r
               for logged, r in zip(w.logged, recomputed, strict=True)]
        x = new_tracer(current().builder.emit(
            w.store, [x.value, old.value, *(d.value for d in dyn)], w.attrs,
            loc=w.node.loc).output, scalar=False)
    return x


def _recompute(recipe: tuple[Node, ...], env: dict[int, Value]) -> None:
    """Emit a write's recipe again (the nodes computing the indices it does
    not save) where ``env`` lacks their results, which go into ``env``."""
    for node in recipe:
        if id(node.output) not in env:
            env[id(node.output)] = current().builder.emit(
                node.op, [env.get(id(v), v) for v in node.inputs], node.attrs, (),
                node.loc).output


@dataclass
class Plan:
    """The carried arrays a loop's gradient rebuilds from undo logs."""

    chains: dict[int, list[Write]]  # position among the carried values -> its writes
    params: dict[int, Value]  # position -> the body's parameter for it
    finals: dict[int, Value]  # position -> the loop's output for it
    read: Callable[[object], list[Tracer]]  # iteration t -> its log entries


def rebuild_iteration(undo: Plan, t: object, ends: tuple, bindings: dict,
                      carried: list) -> list[Tracer]:
    """Rebuild the undo-logged carried arrays at the start of iteration ``t``
    from ``ends`` (theirs at its end), binding them for the replay."""
    entries, k = undo.read(t), 0
    env = dict(bindings)
    starts = []
    for j, end in zip(undo.chains, ends, strict=True):
        chain = undo.chains[j]
        n = sum(w.entries for w in chain)
        start = _undone(end, chain, entries[k:k + n], env)
        k += n
        bindings[id(undo.params[j])] = carried[j] = start.value
        starts.append(start)
    return starts
