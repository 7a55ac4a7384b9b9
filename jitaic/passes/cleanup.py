"""Global cleanup passes: dead code elimination and common subexpressions."""

from __future__ import annotations

from collections import ChainMap
from contextlib import contextmanager

from jitaic.ir import ops
from jitaic.ir.graph import Graph, Node, Region
from jitaic.ir.lengths import length_key
from jitaic.ir.ops import ALLOCATES, EFFECTFUL, ELEMENTWISE, MAY_RAISE
from jitaic.passes.rewrite import Rebuilder


def eliminate_dead_code(graph: Graph) -> tuple[Graph, bool]:
    """Drop nodes none of whose outputs reach a result or an argument update,
    inside control-flow bodies too (a gradient in a loop body computes
    cotangents nobody reads)."""
    nodes, changed = _live_nodes(graph.nodes, (*graph.results, *graph.updates.values()))
    if not changed:
        return graph, False
    return Graph(graph.params, nodes, graph.results, name=graph.name,
                 updates=graph.updates), True


# Traits of nodes that run though nothing reads them: effects (checks, stores)
# and errors NumPy raises whether or not the value is used.
_KEPT = frozenset({EFFECTFUL, MAY_RAISE})


def _runs_anyway(node: Node) -> bool:
    """Kept though nothing reads it: the node itself, or a node in its bodies
    (an if whose branch raises, a loop whose body may), is one that runs
    anyway."""
    return _kept_itself(node) or any(_kept_itself(inner) for region in node.regions
                                     for inner in region.walk())


def _kept_itself(node: Node) -> bool:
    """A node with an effect or that may raise (an elementwise op broadcasting
    run-time lengths too; MAY_RAISE does not count for reads ``bounded`` by
    construction, a gradient's own and lstsq's residuals, nor where
    ``Op.raises`` says the operands cannot make it raise), or a read at a
    run-time index that may be out of range."""
    traits = node.op.traits
    if node.attrs.get("bounded") or not node.op.may_raise(node):
        traits = traits - {MAY_RAISE}
    return bool(traits & _KEPT) or _may_not_broadcast(node) or _checked_read(node)


def _checked_read(node: Node) -> bool:
    """A read at a run-time index that may be out of range (not a gradient's
    own, ``bounded``), by a slice or an index array (``a[idx]``): NumPy raises
    for it whether or not its value is used."""
    return (node.op is ops.dyn_getitem or node.op is ops.gather) \
        and not node.attrs.get("bounded") and node.op.may_raise(node)


def _may_not_broadcast(node: Node) -> bool:
    """An elementwise node whose operands' run-time lengths may not broadcast
    (NumPy raises ValueError for ``x + x[k:]`` even when the sum goes unused)."""
    if ELEMENTWISE not in node.op.traits:
        return False
    distinct = {id(v): v.shape for v in node.inputs}
    return ops.checked_when_run(*distinct.values()) and not _gathered_alike(node) \
        and not _equal_by_construction(node)


def _equal_by_construction(node: Node) -> bool:
    """Operands whose run-time lengths have one key per axis (ir/lengths.py),
    the static extents there all 1: they broadcast (a gradient's replay of
    ``y[:k] + a * y[:k][::-1]``)."""
    ndim = node.output.type.ndim
    for axis in range(ndim):
        keys, extents = set(), set()
        for v in node.inputs:
            k = axis - (ndim - v.type.ndim)
            if k < 0:
                continue
            if v.shape[k] is None:
                keys.add(length_key(v, k, through_views=True))
            elif v.shape[k] != 1:
                extents.add(v.shape[k])
        if len(keys) > 1 or (keys and extents):
            return False
    return True


def _gathered_alike(node: Node) -> bool:
    """Operands whose run-time lengths are one mask's count of true entries
    (x[m] ** 2 + y[m]), the others of static shapes broadcast against them
    (a leading 1 where they have as many axes): they broadcast."""
    ndim = node.output.type.ndim
    rows = [v for v in node.inputs if None in v.shape]
    if not rows or any(v.type.ndim != ndim or None in v.shape[1:] for v in rows) or any(
            v.type.ndim == ndim and v.shape[0] != 1 for v in node.inputs if None not in v.shape):
        return False
    masks = [ops.gathering_mask(v) for v in rows]
    return masks[0] is not None and all(m is masks[0] for m in masks)


def _live_nodes(nodes, results):
    """The nodes ``results`` need, and whether any went. A node that may
    raise stays, in bodies too (``x[i:].max()`` of an empty window raises in
    NumPy though nothing reads it); autodiff marks its own reads of tapes and
    replays ``bounded``, which cannot raise: keeping those would keep whole
    forward loops alive."""
    live = {id(v) for v in results}
    kept_nodes, changed = [], False
    for node in reversed(nodes):
        if not _runs_anyway(node) and not any(id(v) in live for v in node.outputs):
            changed = True
            continue
        node, dropped = _drop_dead_carried(node, live)
        node, pruned = _prune_bodies(node)
        changed |= pruned or dropped
        kept_nodes.append(node)
        live.update(id(v) for v in node.inputs)
        for region in node.regions:  # bodies may read outer values
            live.update(id(v) for inner in region.walk() for v in inner.inputs)
            live.update(id(v) for v in region.results)
    return tuple(reversed(kept_nodes)), changed


def _read_by(region: Region, results) -> set[int]:
    """Ids of the values the nodes that ``results`` need (effects included) read."""
    live = {id(v) for v in results}
    for node in reversed(region.nodes):
        if _runs_anyway(node) or any(id(v) in live for v in node.outputs):
            live.update(id(v) for v in node.inputs)
            for inner in node.regions:
                live.update(id(v) for n in inner.walk() for v in n.inputs)
                live.update(id(v) for v in inner.results)
    return live


def _drop_dead_carried(node: Node, live: set[int]) -> tuple[Node, bool]:
    """A loop without the carried values nobody reads after it and no kept
    part of it reads (the tape of a value the backward pass never needs)."""
    if node.op not in (ops.while_loop, ops.for_loop):
        return node, False
    body = node.regions[-1]
    test = node.regions[0] if node.op is ops.while_loop else None
    lead = len(body.params) - len(node.outputs)  # a for loop's index comes first
    keep = [j for j, v in enumerate(node.outputs) if id(v) in live]
    while True:  # grow the kept set with the carried values the kept ones read
        needed = _read_by(body, [body.results[j] for j in keep])
        if test is not None:
            needed |= _read_by(test, test.results)
        more = [j for j in range(len(node.outputs)) if j not in keep
                and (id(body.params[lead + j]) in needed
                     or (test is not None and id(test.params[j]) in needed))]
        if not more:
            break
        keep = sorted(keep + more)
    if len(keep) == len(node.outputs):
        return node, False
    bounds = len(node.inputs) - len(node.outputs)
    inputs = (*node.inputs[:bounds], *(node.inputs[bounds + j] for j in keep))
    regions = [Region((*body.params[:lead], *(body.params[lead + j] for j in keep)),
                      body.nodes, tuple(body.results[j] for j in keep))]
    if test is not None:
        regions.insert(0, Region(tuple(test.params[j] for j in keep), test.nodes,
                                 test.results))
    outputs = tuple(node.outputs[j] for j in keep)
    new = Node(node.op, inputs, node.attrs, outputs, tuple(regions), node.loc)
    for i, v in enumerate(outputs):
        v.producer, v.index = new, i
    return new, True


def _prune_bodies(node: Node) -> tuple[Node, bool]:
    """The node with dead code removed from its regions (results stay: they are
    the branch values or the loop-carried values)."""
    regions, changed = [], False
    for region in node.regions:
        nodes, pruned = _live_nodes(region.nodes, region.results)
        regions.append(Region(region.params, nodes, region.results) if pruned else region)
        changed |= pruned
    if not changed:
        return node, False
    new = Node(node.op, node.inputs, node.attrs, node.outputs, tuple(regions), node.loc)
    for v in new.outputs:
        v.producer = new
    return new, True


def eliminate_common_subexpressions(graph: Graph) -> tuple[Graph, bool]:
    """Nodes with the same op, inputs and attributes compute the same value
    once. A body sees the values computed before its node (they dominate it)
    but not those of sibling bodies, and its own stay inside it. Filled
    arrays stay apart: fusion reads their fill as a constant, and a store
    into a merged one would copy it first (two np.zeros(n) a loop fills)."""
    rb = Rebuilder()
    seen = ChainMap()

    @contextmanager
    def body_scope():
        nonlocal seen
        seen = seen.new_child()
        try:
            yield
        finally:
            seen = seen.parents

    def visit(node: Node) -> None:
        rb.keep(node)
        current = rb.nodes[-1]
        if current.op.traits & {EFFECTFUL, ALLOCATES} or current.op is ops.full:
            return
        key = (current.op, tuple(id(v) for v in current.inputs),
               ops.attrs_key(current.attrs))
        if key in seen:
            rb.nodes.pop()
            for old, new in zip(current.outputs, seen[key].outputs, strict=True):
                rb.replace(old, new)
        else:
            seen[key] = current

    rb.nodes = rb.block(graph.nodes, visit, body_scope)
    return rb.finish(graph), rb.changed
