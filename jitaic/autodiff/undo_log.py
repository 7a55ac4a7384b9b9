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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from jitaic.ir import ops
from jitaic.ir.graph import Node, Region, Value
from jitaic.tracer import numpy as tnp
from jitaic.tracer.core import Tracer, current, new_tracer

_SLICE_OF = {ops.setitem: ops.getitem, ops.dyn_setitem: ops.dyn_getitem}


def chains_of(params: list[Value], results: list[Value], body: Region
              ) -> dict[int, list[Node]]:
    """Position -> the body's stores (in order) that make result from param,
    for carried arrays changed by nothing else, each store's overwritten
    part of a static shape (a tape row)."""
    produced = {id(o): n for n in body.nodes for o in n.outputs}
    uses = [id(r) for r in results]
    chains = {}
    for j, (p, r) in enumerate(zip(params, results, strict=True)):
        if p.type.ndim == 0 or uses.count(id(r)) != 1:
            continue
        chain, v = [], r
        while v is not p:
            node = produced.get(id(v))
            if node is None or node.op not in _SLICE_OF:
                break
            chain.append(node)
            v = node.inputs[0]
        else:
            if chain and all(_overwritten_type(n).static for n in chain):
                chains[j] = chain[::-1]
    return chains


def _overwritten_type(store: Node):
    read = _SLICE_OF[store.op]
    return read.infer([store.inputs[0].type, *(v.type for v in store.inputs[2:])],
                      store.attrs, ())[0]


def overwritten(store: Node, inputs: list[Value]) -> list[Tracer]:
    """What a store is about to overwrite (a view: the log must copy it
    before the store runs), and its run-time indices: its undo log entries."""
    base, _, *dyn = inputs
    old = current().builder.emit(_SLICE_OF[store.op], [base, *dyn], store.attrs,
                                 loc=store.loc).output
    return [new_tracer(old, scalar=False),
            *(tnp.astype(new_tracer(d), np.int64) for d in dyn)]


def _entries(store: Node) -> int:
    """How many log entries a store makes: what it overwrites, and each
    run-time index."""
    return 1 + len(store.inputs[2:])


def entry_types(chains: dict[int, list[Node]]) -> list[tuple[tuple[int, ...], np.dtype]]:
    """(shape, dtype) of each log entry, in the order ``overwritten`` makes them."""
    types = []
    for chain in chains.values():
        for store in chain:
            old = _overwritten_type(store)
            types.append((old.shape, old.dtype))
            types += [((), np.dtype(np.int64))] * (_entries(store) - 1)
    return types


def element_reads_bypassing(undo: Plan) -> Callable:
    """For the reverse replay: an element read of what a logged store wrote
    (``A[i, j] /= A[j, j]`` right after ``A[i, j] -= ...``) becomes
    ``v if (i, j) == (k, l) else A[k, l]`` on the array before the store.
    The store's output is then read by later stores only, whose outputs the
    backpropagation never reads: dead code, not a copy of the array per
    iteration (the replay must leave the rebuilt array intact)."""
    stores = {id(s.outputs[0]): s for chain in undo.chains.values() for s in chain}
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
        same = None
        for a, b in zip(read_at, wrote_at, strict=True):
            same = (a == b) if same is None else same & (a == b)
        return tnp.where(same, tnp.astype(new_tracer(value), old.dtype), old).value

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


def entry_offsets(chains: dict[int, list[Node]]) -> dict[int, int]:
    """id(store) -> the index of its first entry among the log entries."""
    offsets, k = {}, 0
    for chain in chains.values():
        for store in chain:
            offsets[id(store)] = k
            k += _entries(store)
    return offsets


def _undone(x: Tracer, chain: list[Node], entries: list[Tracer]) -> Tracer:
    """The carried array before the iteration's stores: ``x`` (after them)
    with each store's overwritten part written back, last store first."""
    per_store, k = [], 0
    for store in chain:
        per_store.append(entries[k:k + _entries(store)])
        k += _entries(store)
    for store, (old, *dyn) in zip(reversed(chain), reversed(per_store), strict=True):
        x = new_tracer(current().builder.emit(
            store.op, [x.value, old.value, *(d.value for d in dyn)], store.attrs,
            loc=store.loc).output, scalar=False)
    return x


@dataclass
class Plan:
    """The carried arrays a loop's gradient rebuilds from undo logs."""

    chains: dict[int, list[Node]]  # position among the carried values -> its stores
    params: dict[int, Value]  # position -> the body's parameter for it
    finals: dict[int, Value]  # position -> the loop's output for it
    read: Callable[[object], list[Tracer]]  # iteration t -> its log entries


def rebuild_iteration(undo: Plan, t: object, ends: tuple, bindings: dict,
                    carried: list) -> list[Tracer]:
    """Rebuild the undo-logged carried arrays at the start of iteration ``t``
    from ``ends`` (theirs at its end), binding them for the replay."""
    entries, k = undo.read(t), 0
    starts = []
    for j, end in zip(undo.chains, ends, strict=True):
        chain = undo.chains[j]
        n = sum(_entries(store) for store in chain)
        start = _undone(end, chain, entries[k:k + n])
        k += n
        bindings[id(undo.params[j])] = carried[j] = start.value
        starts.append(start)
    return starts
