"""VJPs of control flow: cond becomes a cond over the branch VJPs.

A branch's intermediate values live inside its region, so the backward
branch recomputes the forward branch (rematerialisation) and backpropagates
through the copy. Cotangents flow to the cond's operands and to every outer
value a branch reads. Loops save the carried values at the start of every
iteration (stacked buffers when the trip count is static, growable tapes when
it is not) and a backward loop replays the body from them in reverse. The
recording loop takes the forward loop's place, so the forward runs once, and
the replayed body's results are bound to the next iteration's saved values,
so the replay keeps only what the backward needs (tanh's output is read back,
not recomputed).

A gradient that will itself be differentiated (grad of grad) cannot read
tapes: their length is known at run time only, and differentiating the reads
would need tapes of tapes. A while loop's VJP built while an outer
differentiation records it therefore saves nothing: the backward iteration t
recomputes the carried values at forward iteration t by running the body t
times from the start (quadratic in the trip count, for second derivatives
only), which the outer VJP differentiates like any loop.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator

import numpy as np

from jitaic.autodiff import undo_log
from jitaic.autodiff.vjp_rules import is_differentiable
from jitaic.errors import UnsupportedError, at, user_location
from jitaic.ir import ops
from jitaic.ir.graph import Node, Region, Value, make_node
from jitaic.tracer import control_flow, loops
from jitaic.tracer import numpy as tnp
from jitaic.tracer.core import Tracer, current, new_tracer

_TAPE_SLOTS = itertools.count()  # one per tape (see ops.tape_new)
_RECORDING = threading.local()  # .depth: differentiations recording the current trace


@contextlib.contextmanager
def recording_for_differentiation() -> Iterator[None]:
    """While the nodes a VJP will walk are being traced (see reverse.py)."""
    _RECORDING.depth = getattr(_RECORDING, "depth", 0) + 1
    try:
        yield
    finally:
        _RECORDING.depth -= 1


def _differentiated_again() -> bool:
    """Whether the VJP being built is itself recorded by an outer differentiation."""
    return getattr(_RECORDING, "depth", 0) > 0

# rule(node, output cotangents, backpropagate) -> [(value, cotangent)]
REGION_VJP_RULES: dict[ops.Op, Callable] = {}


def _captured(region: Region) -> list[Value]:
    """Values a region reads from enclosing scopes, in first-use order."""
    inside = {id(p) for p in region.params}
    out, seen = [], set()
    for node in region.walk():
        for v in node.inputs:
            if id(v) not in inside and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        inside.update(id(o) for o in node.outputs)
    for v in region.results:
        if id(v) not in inside and id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def _replay(region: Region, bindings: dict[int, Value], known: dict[int, Value] | None = None,
            aliases: dict[int, Value] | None = None,
            before: Callable[[Node, list[Value], dict], None] | None = None,
            instead: Callable[[Node, list[Value]], Value | None] | None = None,
            bounded: bool = False) -> tuple[list[Node], list[Value]]:
    """Re-emit a region's nodes in the current block with its params bound.

    Nested bodies (a cond inside a loop) read values of this region, so they
    are rebuilt with the same substitution. ``known`` gives saved copies of
    some of the region's values: later nodes read the copy, and ``aliases``
    records, per re-emitted output, the copy that stands for it (see
    ``backpropagate``), so the recomputation can become dead code.
    ``before(node, inputs, env)`` runs before each node is re-emitted (the undo
    log reads what a store or a nested loop will overwrite there; ``env`` maps
    the region's values); ``instead(node, inputs)`` may give the value of a
    one-output node instead of re-emitting it. ``bounded``: the forward
    already checked the region's reads at run-time indices (a reverse loop's
    replay), so their copies are not checked again (``ops.dyn_getitem``).
    """
    env = dict(bindings)
    known = known or {}
    builder = current().builder
    nodes = []
    for node in region.nodes:
        regions = tuple(_substitute(r, env, bounded) for r in node.regions)
        inputs = [env.get(id(v), v) for v in node.inputs]
        if before is not None:
            before(node, inputs, env)
        if instead is not None and len(node.outputs) == 1:
            block = builder._blocks[-1]
            first = len(block)
            value = instead(node, inputs)
            if value is not None:  # backpropagation walks the nodes that made it
                nodes += block[first:]
                env[id(node.outputs[0])] = value
                continue
        new = builder.emit(node.op, inputs, _attrs(node, bounded), regions, node.loc)
        for o, n in zip(node.outputs, new.outputs, strict=True):
            env[id(o)] = known.get(id(o), n)
            if id(o) in known and aliases is not None:
                aliases[id(n)] = known[id(o)]
        nodes.append(new)
    return nodes, [env.get(id(v), v) for v in region.results]


def _substitute(region: Region, env: dict[int, Value], bounded: bool = False) -> Region:
    """A copy of a body whose reads of outer values go through ``env``."""
    inner = dict(env)
    nodes = []
    for node in region.nodes:
        regions = tuple(_substitute(r, inner, bounded) for r in node.regions)
        new = make_node(node.op, [inner.get(id(v), v) for v in node.inputs],
                        _attrs(node, bounded), regions, node.loc)
        inner.update({id(o): n for o, n in zip(node.outputs, new.outputs, strict=True)})
        nodes.append(new)
    return Region(region.params, tuple(nodes), tuple(inner.get(id(v), v)
                                                     for v in region.results))


def _attrs(node: Node, bounded: bool) -> dict:
    """A replayed node's attributes: a read or store the forward checked,
    ``bounded``."""
    if bounded and node.op in (ops.dyn_getitem, ops.dyn_setitem):
        return {**node.attrs, "bounded": True}
    return node.attrs


def _row(array: Tracer, t: Tracer, loc: object) -> Value:
    """Row ``t`` of a gradient's own stack or tape (in range by construction),
    at the loop's line ``loc``."""
    return current().builder.emit(ops.dyn_getitem, [array.value, t.value],
                                  {"index": (ops.DYNAMIC,), "bounded": True}, loc=loc).output


def _store_row(array: Tracer, t: Tracer, value: object) -> None:
    """``array[t] = value`` into a gradient's own stack or log (``t`` in range
    by construction): the store is dead code where nothing reads the array."""
    row = tnp.as_tracer(value)
    if row.dtype != array.dtype:
        row = tnp.astype(row, array.dtype)
    if row.shape != array.shape[1:]:
        row = tnp.broadcast_to(row, array.shape[1:])
    t = tnp.astype(tnp.as_tracer(t), np.int64, copy=False)
    array.write(current().builder.emit(
        ops.dyn_setitem, [array.value, row.value, t.value],
        {"index": (ops.DYNAMIC,), "bounded": True}, loc=user_location()).output)


def _zeros(v: Value) -> Tracer:
    return tnp.full_value(v.shape, 0.0, v.dtype)


def _cond_vjp(node: Node, cotangents: list, backpropagate: Callable) -> list:
    pred, *operands = node.inputs
    bindings = {id(p): o for r in node.regions for p, o in zip(r.params, operands, strict=True)}
    wrt = [v for v in dict.fromkeys(
        [*operands, *(w for r in node.regions for w in _captured(r))], None)
        if is_differentiable(v.dtype) and id(v) not in bindings]
    gs = [g if g is not None else _zeros(v) for g, v in zip(cotangents, node.outputs,
                                                              strict=True)]

    def backward(region: Region):
        def branch():
            nodes, results = _replay(region, bindings)
            seeds: dict[int, Tracer] = {}
            for r, g in zip(results, gs, strict=True):
                if is_differentiable(r.dtype):
                    seeds[id(r)] = g if id(r) not in seeds else seeds[id(r)] + g
            cts = backpropagate(nodes, seeds)
            return tuple(cts[id(w)] if id(w) in cts else _zeros(w) for w in wrt)

        return branch

    if not wrt:
        return []
    outs = control_flow.cond(new_tracer(pred), backward(node.regions[0]),
                             backward(node.regions[1]), [])
    return list(zip(wrt, outs, strict=True))


REGION_VJP_RULES[ops.cond] = _cond_vjp


# ---------------------------------------------------------------- for_loop

def _static_int(v: Value) -> int | None:
    node = v.producer
    while node is not None and node.op is ops.astype:
        node = node.inputs[0].producer
    if node is None or node.op is not ops.constant:
        return None
    return int(node.attrs["value"])


def _backward_loop(init: list[Value], body: Region, n: object, restore: Callable,
                   cotangents: list, backpropagate: Callable, read_next: bool = True,
                   undo: undo_log.Plan | None = None,
                   kept: Callable[[object], dict[int, Value]] | None = None) -> list:
    """The reverse sweep shared by for and while loops.

    Iteration ``t`` runs from ``n - 1`` down to 0: ``restore(t)`` gives the body's
    parameter bindings as saved at the start of forward iteration ``t`` and the
    carried values among them; the body is replayed from them and the carried
    cotangents are backpropagated through the copy (reading the body's results
    from ``restore(t + 1)`` where ``read_next``). Cotangents of outer values the
    body reads are summed over iterations. Carried arrays with an undo log
    (``undo``; restore gives None for them) are carried backwards too, each
    iteration writing back what the forward iteration overwrote. ``kept(t)``
    gives body values the recording saved at iteration ``t`` (read, not
    recomputed).
    """
    float_carried = [j for j, v in enumerate(init) if is_differentiable(v.dtype)]
    captured = [v for v in _captured(body) if is_differentiable(v.dtype)]
    if any(not v.type.static for v in captured):  # a gradient loop reading its tapes
        raise UnsupportedError(f"gradients of gradients through a while loop (or a for "
                               f"loop with traced bounds) are not supported yet"
                               f"{at(body.nodes[0].loc if body.nodes else None)}")
    gs = [cotangents[j] if cotangents[j] is not None else _zeros(init[j])
          for j in float_carried]
    undone = list(undo.chains) if undo else []
    n_g, n_acc = len(float_carried), len(captured)

    def reverse(t_rev, *state):
        g_carried, acc, ends = state[:n_g], state[n_g:n_g + n_acc], state[n_g + n_acc:]
        t = (n - 1) - t_rev
        bindings, carried = restore(t)
        starts = undo_log.rebuild_iteration(undo, t, ends, bindings, carried) if undo else []
        aliases: dict[int, Value] = {}
        known = _saved_results(body, restore(t + 1)[1]) if read_next else {}
        if kept is not None:
            known.update(kept(t))
        nodes, results = _replay(body, bindings, known, aliases,
                                 instead=undo_log.element_reads_bypassing(undo) if undo else None,
                                 bounded=True)
        # the outer values' cotangents accumulate into the carried sums
        # directly: a row read adds to one row of its sum (add_cotangents)
        seeds: dict[int, Tracer] = {id(w): a for w, a in zip(captured, acc, strict=True)}
        for j, g in zip(float_carried, g_carried, strict=True):
            r = results[j]
            seeds[id(r)] = g if id(r) not in seeds else seeds[id(r)] + g
        cts = backpropagate(nodes, seeds, aliases)
        new_g = [cts[id(carried[j])] if id(carried[j]) in cts else _zeros(init[j])
                 for j in float_carried]
        return (*new_g, *(cts[id(w)] for w in captured), *starts)

    ends = [new_tracer(undo.finals[j], scalar=False) for j in undone]
    outs = loops.for_loop(0, n, 1, reverse,
                                 [*gs, *(_zeros(w) for w in captured), *ends])
    pairs = [(init[j], outs[m]) for m, j in enumerate(float_carried)]
    pairs += list(zip(captured, outs[n_g:n_g + n_acc], strict=True))
    return pairs


def _saved_results(body: Region, after: list[Value | None]) -> dict[int, Value]:
    """The body's results are the next iteration's saved carried values: the
    replay reads those (tanh's output, say) instead of recomputing them
    (not the undo-logged ones: None)."""
    produced = {id(o) for node in body.nodes for o in node.outputs}
    known: dict[int, Value] = {}
    for r, a in zip(body.results, after, strict=True):
        if a is not None and id(r) in produced and id(r) not in known and r.shape == a.shape \
                and r.dtype == a.dtype:
            known[id(r)] = a
    return known


def _in_place_of(node: Node, offset: int, record: Callable[[], list]) -> list:
    """Emit the recording copy of loop ``node`` (``record()``) where ``node``
    stands in the current block, its carried outputs (from ``offset`` on)
    taking over ``node``'s: the forward loop then runs once, not twice.

    Where ``node`` is not in the current block (or the types differ), the
    copy is appended and the loop runs twice.
    """
    builder = current().builder
    builder.open_block()
    try:
        outs = record()
    finally:
        emitted = list(builder.close_block())
    block = builder._blocks[-1]
    loop = emitted[-1]
    assert loop.op in (ops.while_loop, ops.for_loop), loop.op
    carried = loop.outputs[offset:offset + len(node.outputs)]
    pos = next((i for i, n in enumerate(block) if n is node), None)
    if pos is None or any(a.type != b.type for a, b in zip(carried, node.outputs,
                                                            strict=True)):
        block.extend(emitted)
        return outs
    outputs = list(loop.outputs)
    outputs[offset:offset + len(node.outputs)] = node.outputs
    merged = Node(loop.op, loop.inputs, loop.attrs, tuple(outputs), loop.regions, loop.loc)
    for i, v in enumerate(outputs):
        v.producer, v.index = merged, i
    block[pos:pos + 1] = [*emitted[:-1], merged]
    return outs


def _for_vjp(node: Node, cotangents: list, backpropagate: Callable) -> list:
    """A forward loop that stacks each iteration's carried values (or, for
    arrays it changes by stores only, what the stores overwrite), then a loop
    over the iterations in reverse that replays the body and backpropagates."""
    start_v, stop_v, step_v, *init = node.inputs
    (body,) = node.regions
    bounds = [_static_int(v) for v in (start_v, stop_v, step_v)]
    if any(b is None for b in bounds):
        return _while_vjp(node, cotangents, backpropagate)
    start, stop, step = bounds
    n = len(range(start, stop, step))
    k = len(init)
    index_param, carried_params = body.params[0], body.params[1:]
    chains = {} if _differentiated_again() else undo_log.chains_of(
        list(carried_params), list(body.results), body)
    stacked = [j for j in range(k) if j not in chains]
    _check_tapes(node, [init[j].type for j in stacked])
    entry_types = undo_log.entry_types(chains)
    log_at = undo_log.entry_offsets(chains)
    expensive = [] if _differentiated_again() else _expensive_values(
        body, SAVED_ELEMENTS // max(n, 1))
    n_logs = len(entry_types)
    recorded = Region(body.params, body.nodes, (*body.results, *expensive))

    def record(i, *state):
        carried = state[:k]
        stacks = list(state[k:k + len(stacked)])
        logs = list(state[k + len(stacked):k + len(stacked) + n_logs])
        saves = list(state[k + len(stacked) + n_logs:])
        t = (i - start) // step
        for m, j in enumerate(stacked):
            _store_row(stacks[m], t, carried[j])

        def log_overwritten(node: Node, inputs: list[Value], env: dict) -> None:
            for write, first in log_at.get(id(node), ()):
                for m, entry in enumerate(undo_log.overwritten(write, inputs, env)):
                    _store_row(logs[first + m], t, entry)

        _, results = _replay(recorded, {id(index_param): i.value, **{
            id(p): c.value for p, c in zip(carried_params, carried, strict=True)}},
            before=log_overwritten)
        for m, value in enumerate(results[k:]):
            _store_row(saves[m], t, new_tracer(value))
        return (*(new_tracer(r) for r in results[:k]), *stacks, *logs, *saves)

    def recording_loop():
        # n + 1 rows: the final carried values go in the last one
        stacks = [tnp.full_value((n + 1, *init[j].shape), 0, init[j].dtype) for j in stacked]
        logs = [tnp.full_value((n, *shape), 0, dtype) for shape, dtype in entry_types]
        saves = [tnp.full_value((n, *v.shape), 0, v.dtype) for v in expensive]
        return loops.for_loop(start, stop, step, record,
                                     [*(new_tracer(v) for v in init), *stacks, *logs, *saves])

    outs = _in_place_of(node, 0, recording_loop)
    filled = outs[k:k + len(stacked)]
    logs = outs[k + len(stacked):k + len(stacked) + n_logs]
    saves = outs[k + len(stacked) + n_logs:]
    for stack, j in zip(filled, stacked, strict=True):
        stack[n] = new_tracer(node.outputs[j])

    def restore(t):
        carried: list[Value | None] = [None] * k
        for stack, j in zip(filled, stacked, strict=True):
            carried[j] = tnp.astype(new_tracer(_row(stack, t, node.loc)), init[j].dtype).value
        i = tnp.as_tracer(t * step + start).value
        return {id(index_param): i, **{id(carried_params[j]): carried[j] for j in stacked}}, \
            carried

    undo = undo_log.Plan(chains, {j: carried_params[j] for j in chains},
                     {j: node.outputs[j] for j in chains},
                     lambda t: [new_tracer(_row(log, t, node.loc), scalar=False) for log in logs]
                     ) if chains else None

    def kept(t):
        return {id(v): _row(save, t, node.loc) for v, save in zip(expensive, saves, strict=True)}

    return _backward_loop(init, body, n, restore, cotangents, backpropagate, undo=undo,
                          kept=kept if expensive else None)


# A loop's gradient saves per iteration the results that cost more to compute
# than to keep: those of expensive elementwise ops (a power, an exponential:
# ops.ELEMENT_COST) and of reductions and products smaller than what they
# read (a dot product of two rows), up to this many elements in all (a while
# loop: per iteration, a 1024th of it), instead of computing them again in the
# reverse loop.
SAVED_ELEMENTS = 1 << 22
_EXPENSIVE = 6  # an exponential's cost


def _check_tapes(node: Node, types: list) -> None:
    """A tape holds a carried value per iteration, each of one static shape:
    a variable whose length is a run-time value (z = z[keep] each step) has
    no gradient yet."""
    for t in types:
        ops.check_static(t, "the gradient of a loop carrying a variable", at(node.loc))


def _expensive_values(body: Region, per_iteration: int) -> list[Value]:
    """The body's float values the reverse loop would recompute at a cost
    and the recording saves instead, ``per_iteration`` elements at most; not
    the carried results (saved anyway)."""
    results = {id(v) for v in body.results}
    out, budget = [], per_iteration
    for node in body.nodes:
        if len(node.outputs) != 1:
            continue
        v = node.output
        if not is_differentiable(v.dtype) or v.type.weak or not v.type.static or id(v) in results \
                or not _worth_saving(node):
            continue
        size = int(np.prod(v.shape, dtype=np.int64))
        if size <= budget:
            out.append(v)
            budget -= size
    return out


def _worth_saving(node: Node) -> bool:
    if ops.ELEMENT_COST.get(node.op, 0) >= _EXPENSIVE:
        return True
    if node.op is not ops.matmul and ops.REDUCTION not in node.op.traits:
        return False
    size = int(np.prod(node.output.shape, dtype=np.int64))
    return any(not v.type.static or int(np.prod(v.shape, dtype=np.int64)) > size
               for v in node.inputs)


REGION_VJP_RULES[ops.for_loop] = _for_vjp


# ---------------------------------------------------------------- while_loop

def _while_vjp(node: Node, cotangents: list, backpropagate: Callable) -> list:
    """A recording copy of the loop pushes each iteration's carried values (or,
    for arrays it changes by stores only, what the stores overwrite: undo
    logs) onto growable tapes and counts iterations; the backward loop runs
    that many times, reading the tapes in reverse.

    A for loop with traced bounds is recorded the same way, its index carried.
    """
    builder = current().builder
    if node.op is ops.for_loop:
        start, _, step, *init = node.inputs
        (body,) = node.regions
        test, index = None, new_tracer(start, scalar=True)
    else:
        test, body = node.regions
        init, index, step = list(node.inputs), None, None
    state = ([index] if index is not None else []) + [new_tracer(v) for v in init]
    k = len(state)
    if _differentiated_again():
        return _recomputing_vjp(node, body, test, init, state, step, cotangents,
                                backpropagate)

    keep_going = _loop_test(node, test, step, k)
    offset = k - len(init)  # a for loop's index comes first
    chains = undo_log.chains_of(list(body.params[offset:]), list(body.results), body)
    # state positions saved per iteration (a for loop's index is recomputed)
    stacked = [m for m in range(offset, k) if m - offset not in chains]
    _check_tapes(node, [state[m].aval for m in stacked])
    entry_types = undo_log.entry_types(chains)
    log_at = undo_log.entry_offsets(chains)
    slots = [next(_TAPE_SLOTS) for _ in stacked]
    log_slots = [next(_TAPE_SLOTS) for _ in entry_types]
    expensive = _expensive_values(body, SAVED_ELEMENTS >> 10)
    save_slots = [next(_TAPE_SLOTS) for _ in expensive]
    n_logs = len(entry_types)
    recorded = Region(body.params, body.nodes, (*body.results, *expensive))

    def push(tape: Tracer, row: Tracer, count: Tracer, slot: int) -> Tracer:
        return new_tracer(builder.emit(ops.tape_push, [tape.value, row.value, count.value],
                                       {"slot": slot}, loc=node.loc).output)

    def record(*carried):
        values = carried[:k]
        tapes = carried[k:k + len(stacked)]
        logs = list(carried[k + len(stacked):k + len(stacked) + n_logs])
        saves = carried[k + len(stacked) + n_logs:-1]
        count = carried[-1]
        pushed = [push(tape, values[m], count, slot)
                  for tape, m, slot in zip(tapes, stacked, slots, strict=True)]

        def log_overwritten(node: Node, inputs: list[Value], env: dict) -> None:
            for write, first in log_at.get(id(node), ()):
                for m, entry in enumerate(undo_log.overwritten(write, inputs, env)):
                    logs[first + m] = push(logs[first + m], entry, count, log_slots[first + m])

        _, results = _replay(recorded, {id(p): v.value for p, v in
                                        zip(body.params, values, strict=True)},
                             before=log_overwritten)
        kept = [push(tape, new_tracer(r), count, slot)
                for tape, r, slot in zip(saves, results[len(body.results):], save_slots,
                                         strict=True)]
        advanced = [values[0] + new_tracer(step)] if index is not None else []
        return (*advanced, *(new_tracer(r) for r in results[:len(body.results)]), *pushed,
                *logs, *kept, count + 1)

    def new_tape(shape: tuple, dtype: np.dtype, slot: int) -> Tracer:
        return new_tracer(builder.emit(ops.tape_new, [], {"shape": shape, "dtype": dtype,
                                                          "slot": slot}, loc=node.loc).output)

    def recording_loop():
        tapes = [new_tape(state[m].shape, state[m].dtype, slot)
                 for m, slot in zip(stacked, slots, strict=True)]
        logs = [new_tape(shape, dtype, slot)
                for (shape, dtype), slot in zip(entry_types, log_slots, strict=True)]
        saves = [new_tape(v.shape, v.dtype, slot)
                 for v, slot in zip(expensive, save_slots, strict=True)]
        zero = tnp.astype(tnp.as_tracer(0), np.int64)
        return loops.while_loop(keep_going, record,
                                       [*state, *tapes, *logs, *saves, zero])

    outs = _in_place_of(node, offset, recording_loop)
    filled = outs[k:k + len(stacked)]
    logs = outs[k + len(stacked):k + len(stacked) + n_logs]
    saves, count = outs[k + len(stacked) + n_logs:-1], outs[-1]
    finals = [*outs[:offset], *(new_tracer(v) for v in node.outputs)]
    filled = [push(tape, finals[m], count, slot)  # the end state
              for tape, m, slot in zip(filled, stacked, slots, strict=True)]

    def restore(t):
        rows: list[Value | None] = [None] * k
        for tape, m in zip(filled, stacked, strict=True):
            rows[m] = _row(tape, t, node.loc)
        bindings = {id(body.params[m]): rows[m] for m in stacked}
        if index is not None:
            i = new_tracer(node.inputs[0]) + t * new_tracer(step)
            bindings[id(body.params[0])] = tnp.astype(i, body.params[0].dtype).value
        return bindings, rows[offset:]

    undo = undo_log.Plan(chains, {j: body.params[offset + j] for j in chains},
                     {j: node.outputs[j] for j in chains},
                     lambda t: [new_tracer(_row(log, t, node.loc), scalar=False) for log in logs]
                     ) if chains else None

    def kept(t):
        return {id(v): _row(save, t, node.loc) for v, save in zip(expensive, saves, strict=True)}

    return _backward_loop(list(init), body, count, restore, cotangents, backpropagate,
                          undo=undo, kept=kept if expensive else None)


REGION_VJP_RULES[ops.while_loop] = _while_vjp


def _loop_test(node: Node, test: Region | None, step: Value | None, k: int) -> Callable:
    """The test of a recording copy of loop ``node``, on its first ``k`` carried
    values: the while loop's own test, or (a for loop with traced bounds, its
    index carried first) range(start, stop, step) with either sign of step."""
    def keep_going(*carried):
        if test is None:
            i, stop = carried[0], new_tracer(node.inputs[1])
            return tnp.where(new_tracer(step) > 0, i < stop, i > stop)
        _, results = _replay(test, {id(p): c.value for p, c in
                                    zip(test.params, carried[:k], strict=True)})
        return new_tracer(results[0])

    return keep_going


def _recomputing_vjp(node: Node, body: Region, test: Region | None, init: list[Value],
                     state: list[Tracer], step: Value | None, cotangents: list,
                     backpropagate: Callable) -> list:
    """The while-loop VJP without tapes (see the module docstring): a counting
    copy of the loop replaces it; backward iteration t reruns t iterations."""
    indexed = test is None  # a for loop with traced bounds: its index is carried first
    k = len(state)

    def advance(values):
        _, results = _replay(body, {id(p): v.value for p, v in
                                    zip(body.params, values, strict=True)})
        moved = [values[0] + new_tracer(step)] if indexed else []
        return [*moved, *(new_tracer(r) for r in results)]

    keep_going = _loop_test(node, test, step, k)

    def counting_loop():
        zero = tnp.astype(tnp.as_tracer(0), np.int64)
        return loops.while_loop(keep_going,
                                       lambda *c: (*advance(list(c[:k])), c[k] + 1),
                                       [*state, zero])

    count = _in_place_of(node, 1 if indexed else 0, counting_loop)[k]

    def restore(t):
        rows = loops.for_loop(0, t, 1, lambda _, *c: tuple(advance(list(c))), state)
        rows = [r.value for r in rows]
        return {id(p): r for p, r in zip(body.params, rows, strict=True)}, rows[k - len(init):]

    return _backward_loop(list(init), body, count, restore, cotangents, backpropagate,
                          read_next=False)
