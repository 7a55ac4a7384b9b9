"""Which buffer each store and kernel writes: the in-place decisions of one
block (the function's, or a control-flow body's), made on its schedule.

- A store updates its target in place where it is the target's last reader
  (a fresh buffer, or a loop-carried one the loop owns); views of the target
  read after it are copied as they are taken when they are smaller.
- A kernel writes its result into the region its one reader, a store right
  after it, claims (no array of its own, no copy loop).
- A kernel writes a result into the buffer of an input it reads for the last
  time (same shape and dtype) instead of a new one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from jitaic.ir import ops
from jitaic.ir.graph import Node, Value
from jitaic.ir.lengths import window_keys
from jitaic.lower.codegen import known_size
from jitaic.lower.fusion import FusionGroup, Scheduled, kernels
from jitaic.lower.kernels import element_cost


@dataclass
class Decisions:
    overwritable: set[tuple[int, int]]  # (value, node): the node stores into value's buffer
    copied: set[int]  # views copied as they are taken, so that a store is in place
    destinations: dict[int, Node]  # kernel output -> the store whose region it is written in
    reusable: dict[int, Value]  # kernel output -> the dead input whose buffer it takes
    written: set[int]  # carried params the block stores into in place


# loop node -> ids of the carried params its body stores into in place
LoopWrites = Callable[[Node], set[int]]


def decide(schedule: list[Scheduled], live_out: Sequence[Value],
           carried: Sequence[Value] = (), loop_writes: LoopWrites | None = None,
           parallel_min_work: int | None = None) -> Decisions:
    """The in-place decisions of one block whose ``live_out`` values are read
    after it; ``carried``: a loop body's carried params; kernels of less
    work than ``parallel_min_work`` (or all, if None) run serially."""
    life = _lifetimes(live_out, schedule)
    loops = _loops_writing_in_place(life, loop_writes) if loop_writes else {}
    _keep_yielded_buffers_alive(life)
    owned = _owned_params(carried, live_out, life) if carried else set()
    taken = _loop_takeovers(life, loops, owned)
    pairs, copied = _overwritable(life, owned)
    pairs |= taken
    placed = _destinations(life, schedule, live_out, pairs, parallel_min_work)
    reuse = _reusable(life, schedule, owned, placed)
    written = {value for value, _ in pairs} | {id(v) for v in reuse.values()}
    return Decisions(pairs, copied, placed, reuse, written & {id(p) for p in carried})


@dataclass
class _Lifetimes:
    position: dict[int, int]  # node -> schedule position
    last_use: dict[int, int]  # value -> the last position reading its buffer
    fresh: set[int]  # values whose buffer nothing else aliases (a node's own output)
    nodes: list[Node]  # in schedule order
    read_itself: dict[int, int]  # value -> the last position reading it, views aside
    views: dict[int, list[Node]]  # value -> the views taken of it (not 0-d element reads)
    # loop outputs the loop owns: stores may overwrite them (kernels do not
    # take them over: writing a kernel's result into a loop's buffer made the
    # heat-equation gradient's later loop 30% slower, for reasons not found)
    loop_owned: set[int] = field(default_factory=set)


def _lifetimes(live_out: Sequence[Value], schedule: list[Scheduled]) -> _Lifetimes:
    """When each buffer is last read.

    Positions are schedule positions (a fused group reads all its inputs at its
    own position; a control-flow node reads everything its bodies read). A view
    keeps its base's buffer alive: the base's last use is the latest use of any
    view derived from it (not of an element read, x[i], a number in the
    generated code). Results and updates live to the end.
    """
    position: dict[int, int] = {}
    for p, item in enumerate(kernels(schedule)):  # a row loop's kernels in order
        for node in item.nodes if isinstance(item, FusionGroup) else [item]:
            position[id(node)] = p
    nodes = sorted(position_order(schedule), key=lambda n: position[id(n)])
    last_use: dict[int, int] = {}
    read_itself: dict[int, int] = {}
    views: dict[int, list[Node]] = {}
    for v in live_out:
        last_use[id(ops.memory_root(v))] = read_itself[id(ops.memory_root(v))] = len(position) + 1
    for node in reversed(nodes):
        reads = [*node.inputs, *(v for r in node.regions for inner in r.walk()
                                 for v in inner.inputs), *(v for r in node.regions
                                                           for v in r.results)]
        for v in reads:
            use = position[id(node)]
            read_itself[id(v)] = max(read_itself.get(id(v), -1), use)
            if ops.VIEW in node.op.traits and node.outputs[0].type.ndim:
                # (a 0-d "view", x[i], is loaded as a number: it holds no buffer)
                use = max(use, last_use.get(id(node.outputs[0]), use))
                if v is node.inputs[0]:
                    views.setdefault(id(v), []).append(node)
            last_use[id(v)] = max(last_use.get(id(v), -1), use)
    fresh = {id(n.outputs[0]) for n in nodes
             if ops.VIEW not in n.op.traits and n.op is not ops.constant and not n.regions
             and len(n.outputs) == 1}
    return _Lifetimes(position, last_use, fresh, nodes, read_itself, views)


def _overwritable(life: _Lifetimes, owned: set[int] = frozenset()
                  ) -> tuple[set[tuple[int, int]], set[int]]:
    """(value, node) pairs where the node is the last reader of a value's buffer
    (a fresh one, or an ``owned`` loop-carried one) and may store into it; and
    the views to copy as they are taken so that more stores may.

    A store after which the buffer is read only through views taken before it
    (a gradient's ``dv = g[:, j]; dx = (g[:, j] = 0)``, dv read later) stores
    in place when copying those views moves less memory than copying the
    buffer would: the views are copied instead."""
    pairs, copied = set(), set()
    for n in life.nodes:
        x = n.inputs[0] if n.op in ops.STORES else None
        if x is None or id(x) not in life.fresh | life.loop_owned | owned:
            continue
        at = life.position[id(n)]
        late = set() if life.last_use.get(id(x)) == at else _late_views(life, x, at)
        if late is not None:
            pairs.add((id(x), id(n)))
            copied |= late
    return pairs, copied


def _carried_of(loop: Node) -> list[tuple[Value, Value, Value]]:
    """(initial value, body param, output) per carried value of a loop."""
    body = loop.regions[-1]
    if loop.op is ops.for_loop:
        return list(zip(loop.inputs[3:], body.params[1:], loop.outputs, strict=True))
    return list(zip(loop.inputs, body.params, loop.outputs, strict=True))


def _loops_writing_in_place(life: _Lifetimes, loop_writes: LoopWrites
                            ) -> dict[int, list[tuple[Value, Value]]]:
    """Loop -> (initial value, output) of each carried array its body stores
    into in place. The loop owns that buffer (it copies the initial value
    first): a later store into the output needs no copy (``loop_owned``)."""
    loops = {}
    for node in life.nodes:
        if node.op in (ops.for_loop, ops.while_loop):
            writes = loop_writes(node)
            loops[id(node)] = [(init, out) for init, param, out in _carried_of(node)
                               if id(param) in writes]
            life.loop_owned.update(id(out) for _, out in loops[id(node)])
    return loops


def _keep_yielded_buffers_alive(life: _Lifetimes) -> None:
    """An if's or loop's output may be the very buffer a branch yields or the
    loop comes in with (compiled code hands arrays on as they are, views
    included): those buffers live as long as the output. Not the outputs of
    loops that store into their carried buffer in place: those own it (they
    copy the initial value, or take it over where nothing reads it after)."""
    def owned(output: Value) -> bool:
        return id(output) in life.loop_owned

    for node in life.nodes:
        for out in node.outputs if node.regions else ():
            if owned(out) or id(out) not in life.last_use:
                continue
            end = life.last_use[id(out)]
            for root in ops.memory_roots(out, owned)[1:]:
                life.last_use[id(root)] = max(life.last_use.get(id(root), -1), end)
                life.read_itself[id(root)] = max(life.read_itself.get(id(root), -1), end)


def _loop_takeovers(life: _Lifetimes, loops: dict[int, list[tuple[Value, Value]]],
                    owned: set[int]) -> set[tuple[int, int]]:
    """(initial value, loop) pairs where a loop of ``loops`` takes the initial
    value's buffer over instead of copying it: the value is fresh (or owned),
    the loop is its last reader, and the body does not read it itself."""
    taken = set()
    for node in life.nodes:
        if id(node) not in loops:
            continue
        captured = {id(v) for r in node.regions for n in r.walk() for v in n.inputs}
        captured |= {id(v) for r in node.regions for v in r.results}
        for init, _ in loops[id(node)]:
            if (id(init) in life.fresh | life.loop_owned | owned and id(init) not in captured
                    and life.last_use.get(id(init)) == life.position[id(node)]
                    and sum(v is init for v in node.inputs) == 1):
                taken.add((id(init), id(node)))
    return taken


_COPYABLE_VIEWS = (ops.getitem, ops.dyn_getitem)


def _late_views(life: _Lifetimes, x: Value, at: int) -> set[int] | None:
    """The views of ``x`` read after position ``at``, when nothing else reads
    ``x`` after it and they are smaller than ``x``; None otherwise."""
    if life.read_itself.get(id(x)) != at:
        return None
    late = [v for v in life.views.get(id(x), []) if life.last_use.get(id(v.output), -1) > at]
    if not late or any(v.op not in _COPYABLE_VIEWS or not v.output.type.static
                       or life.position[id(v)] >= at for v in late):
        return None
    if x.type.static and sum(v.output.type.size for v in late) >= x.type.size:
        return None
    return {id(v.output) for v in late}


def _owned_params(carried: Sequence[Value], results: Sequence[Value],
                  life: _Lifetimes) -> set[int]:
    """Loop-carried params whose buffer the loop may update in place, once the
    loop copies their initial value: each iteration hands the next one a
    buffer of its own (the param stored into, a fresh array of the body, or
    the result of an inner loop that owns it), used once."""
    produced = {id(o): n for n in life.nodes for o in n.outputs}
    counts = Counter(id(v) for v in results)
    owned = set()
    for p, result in zip(carried, results, strict=True):
        node = produced.get(id(result))
        if (p.type.ndim == 0 or counts[id(result)] != 1 or node is None
                or (node.regions and id(result) not in life.loop_owned)
                or ops.VIEW in node.op.traits or node.op is ops.constant):
            continue
        if node.op in ops.STORES and node.inputs[0] is not p \
                and node.inputs[0].producer is None:
            continue  # it stores into another param's buffer
        if node.regions and any(out is result and init is not p and init.producer is None
                                for init, _, out in _carried_of(node)):
            continue  # the loop took over another param's buffer
        owned.add(id(p))
    return owned


def _reusable(life: _Lifetimes, schedule: list[Scheduled], owned: set[int] = frozenset(),
              placed: dict[int, Node] | None = None) -> dict[int, Value]:
    """Stored outputs of fused kernels that can be written into the buffer of an
    input the kernel reads for the last time (same shape and dtype: element i
    is read before element i is written), instead of a new allocation; not
    those ``placed`` into a store's region (``_destinations``).

    Not an input the kernel also reads through a view (``y * 2 + y.T``,
    ``y[::-1] + y``: element i of the view is another element of the buffer,
    which a store may already have overwritten)."""
    reuse: dict[int, Value] = {}
    for p, item in enumerate(kernels(schedule)):
        if not isinstance(item, FusionGroup):
            continue
        inside = {id(n.output) for n in item.nodes}
        outside = [(n, v) for n in item.nodes for v in n.inputs if id(v) not in inside]
        viewed = {id(ops.memory_root(v)) for n, v in outside
                  if ops.VIEW in n.op.traits or ops.memory_root(v) is not v}
        candidates = [v for n, v in outside
                      if id(v) in life.fresh | owned and id(v) not in viewed
                      and life.last_use.get(id(v)) == p and v.shape == item.domain]
        for out in item.stored:
            if placed and id(out) in placed:
                continue
            match = next((v for v in candidates if v.dtype == out.dtype), None)
            if match is not None:
                reuse[id(out)] = match
                item.reuses += 1
                candidates = [v for v in candidates if v is not match]
    return reuse




def _destinations(life: _Lifetimes, schedule: list[Scheduled], escaping: Sequence[Value],
                  pairs: set[tuple[int, int]], parallel_min_work: int | None) -> dict[int, Node]:
    """Kernel outputs whose one reader, right after the kernel, stores them in
    place into a region of their shape (``g[2:] = g[2:] + h``, a row of a
    carried array): the kernel writes into the region itself, with no array
    of its own and no copy loop. Not where the kernel reads the target other
    than through that very region (element i of another view is another
    element, which the kernel may have overwritten already)."""
    readers = Counter(id(v) for n in life.nodes for v in n.inputs)
    for n in life.nodes:
        for region in n.regions:
            readers.update(id(v) for inner in region.walk() for v in inner.inputs)
            readers.update(id(v) for v in region.results)
    readers.update(id(v) for v in escaping)
    out: dict[int, Node] = {}
    for group, store in zip(schedule, schedule[1:], strict=False):
        if not isinstance(group, FusionGroup) or group.reduction is not None \
                or not isinstance(store, Node) or store.op not in ops.READ_OF_STORE:
            continue
        x, v = store.inputs[:2]
        if (v not in group.stored or readers[id(v)] != 1 or (id(x), id(store)) not in pairs
                or v.dtype != x.dtype or not _fills_region(v, group, store)
                or not _reads_target_only_at(group, store, _serial(group, parallel_min_work))):
            continue
        out[id(v)] = store
        group.into_regions += 1
    return out


def _fills_region(v: Value, group: FusionGroup, store: Node) -> bool:
    """The kernel's output ``v`` has the shape of the region ``store`` writes:
    statically, or a run-time length the region's window has too (``g[:i] =
    g[:i] + s * a[:i]``)."""
    x, _, *values = store.inputs
    region = ops.slice_shape(x.shape, store.attrs["index"])
    if region != v.shape or v.shape != tuple(d if isinstance(d, int) else None
                                             for d in group.domain):
        return False
    keys = window_keys(x.shape, store.attrs["index"], values)
    return all(d is not None or (k < len(keys) and keys[k] is not None
                                 and keys[k] == group.domain[k])
               for k, d in enumerate(v.shape))


def _reads_target_only_at(group: FusionGroup, store: Node, serial: bool) -> bool:
    """The kernel reads the store's target (any view of its buffer) only
    through the region the store writes, and does not compute the target.
    A serial 1-D kernel may also read the target at elements its loop writes
    later or never (``g[0:n] = g[1:n + 1] + g[0:n]``: element i + 1 is read
    at iteration i, before iteration i + 1 writes it); a parallel one may not,
    as another thread may have written them."""
    x = store.inputs[0]
    root = ops.memory_root(x)
    inside = {id(n.output) for n in group.nodes}
    if id(root) in inside:
        return False
    for node in group.nodes:
        for w in node.inputs:
            if id(w) in inside or ops.memory_root(w) is not root:
                continue
            read = w.producer
            if (read is None or read.op is not ops.READ_OF_STORE[store.op]
                    or read.inputs[0] is not x
                    or any(a is not b for a, b in zip(read.inputs[1:], store.inputs[2:],
                                                      strict=True))):
                return False
            if read.attrs["index"] != store.attrs["index"] and not (
                    serial and store.op is ops.setitem and len(group.domain) == 1
                    and w.shape == group.domain
                    and _read_ahead(read.attrs["index"], store.attrs["index"], x.shape)):
                return False
    return True


def _read_ahead(read: tuple, write: tuple, shape: tuple) -> bool:
    """Static basic indices of one array, a read and a write of one
    iterated axis: every element the read takes at iteration i is written at
    an iteration >= i, or never (another row, another residue of the step)."""
    full = [(0, n, 1) for n in shape]
    read, write = (list(ix) + full[len(ix):] for ix in (read, write))
    for r, w in zip(read, write, strict=True):
        if isinstance(r, tuple) != isinstance(w, tuple):
            return False
        if not isinstance(r, tuple):
            if r != w:
                return True  # another row: never written
            continue
        if r[2] != w[2] or len(range(*r)) != len(range(*w)):
            return False
        if len(range(*r)) > 1:  # the iterated axis
            delta, step = r[0] - w[0], r[2]
            if delta % step == 0 and delta // step < 0:
                return False
    return True


def _serial(group: FusionGroup, parallel_min_work: int | None) -> bool:
    """Whether the kernel's loop will be serial (codegen.Emitter.runs_parallel)."""
    size = known_size(group.domain)
    return parallel_min_work is None or size is None \
        or size * element_cost(group.nodes) < parallel_min_work


def position_order(schedule: list[Scheduled]) -> list[Node]:
    return [n for item in kernels(schedule)
            for n in (item.nodes if isinstance(item, FusionGroup) else [item])]
