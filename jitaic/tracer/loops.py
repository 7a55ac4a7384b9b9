"""Loops on Tracers: while_loop and for_loop.

Each loop's body is traced into a Region (``control_flow.trace_body``) until
the carried values' types reach a fixed point: ``acc = 0`` followed by
``acc += x[i]`` carries a float64. Arrays from enclosing scopes that the
body writes in place become extra carried values; a loop that may run zero
times leaves a variable that an iteration rebinds as the array it came in as
on those paths (``tracer/aliases.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from jitaic.errors import (
    UnsupportedError,
    at,
    user_location,
)
from jitaic.ir import ops
from jitaic.ir.graph import Node, Region, Value
from jitaic.ir.types import TensorType, example_value
from jitaic.tracer import aliases
from jitaic.tracer.control_flow import (
    NUMPY_ERRORS,
    TRACEABLE,
    Body,
    as_flag,
    cast_results,
    computed_at,
    cond,
    emit_node,
    joined_type,
    kind_of,
    numpys_error,
    output_leaves,
    raise_when_run,
    run_time_index,
    same_view,
    trace_body,
    traced_by_position,
    unchanged_values,
    update_buffers,
    with_results,
)
from jitaic.tracer.core import Buffer, Tracer, ViewStep, current, emit, new_tracer, to_value
from jitaic.tracer.rebound_writes import refuse_lost_writes, shared_memory


def _lift_carried(values: Sequence[object]) -> list[object]:
    """Loop-carried Python numbers become traced scalars (they change per iteration)."""
    return [new_tracer(to_value(v), scalar=True)
            if isinstance(v, (bool, int, float, complex, np.generic))
            and not isinstance(v, Tracer) else v for v in values]


def _loop(op: ops.Op, body_fn: Callable, cond_fn: Callable | None, init: Sequence[object],
          bounds: Sequence[Value] = (), names: Sequence[str] = (),
          index_range: range | None = None, observed: Sequence[str] = ()) -> list:
    """The loop, emitted. ``observed`` names the variables read after it: where
    one leaves it with another dtype than it came in with, and the loop may
    run 0 times, the loop also counts whether it ran (``_trip_dependent``)."""
    if any(_holds_tracers(v) for v in init):
        return _loop_of_leaves(op, body_fn, cond_fn, init, bounds, names, index_range,
                               observed)
    # a for loop's index is a Python int, as range gives: weak (NEP 50)
    leading = [TensorType((), np.int64, weak=True)] if op is ops.for_loop else []
    lifted = _lift_carried(init)
    try:
        carried, buffers, body = _settle(body_fn, lifted, leading, index_range, names)
    except _FirstIterationError as first:
        return _failing_loop(first.error, body_fn, cond_fn, bounds, first.carried, names)
    except (_InexactCarry, _FirstIterationDiffers) as inexact:
        if index_range is None:
            raise UnsupportedError(f"{inexact}{at(user_location())}") from None
        return _peeled(body_fn, lifted, index_range, names, observed)
    except _LaterIterationError as later:
        if index_range is None:
            raise UnsupportedError(
                f"a loop whose first iteration changes a variable's dtype, with which the "
                f"next iteration raises NumPy's {type(later.error).__name__} ({later.error})"
                f": jitaic compiles such a loop over a constant range only") from None
        return _peeled(body_fn, lifted, index_range, names, observed)
    in_place = _handed_on(lifted, carried, body)
    if in_place:
        try:
            return _loop_in_place(in_place, op, body_fn, cond_fn, init, bounds, names,
                                  index_range, observed, len(leading))
        except _NotInPlace:
            pass  # an iteration rebinds the name after all: carry it as a value
    refuse_lost_writes(lifted, body.writes_arg, body.outer_view, names)
    differing = _trip_dependent(lifted, carried, body, names, observed)
    may_skip = not (index_range and len(index_range))
    keeps_init = _may_keep_init(lifted, carried, body) if may_skip else []
    # whether a while loop ran is counted (a for loop's bounds say it)
    counted = bool(differing or (keeps_init and op is ops.while_loop)) and may_skip
    if counted:
        body_fn, cond_fn = _counting_trips(body_fn, cond_fn)
        names = [*_padded(names, len(init)), "the loop's trip flag"]
        carried, buffers, body = _settle(body_fn, _lift_carried([*init, np.False_]),
                                         leading, index_range, names)
    result = _emit_loop(op, body, cond_fn, carried, buffers, bounds)
    ran = result.pop() if counted else None
    if ran is not None and differing:
        from jitaic.tracer.numpy.common import require

        for message in differing.values():
            require(ran, UnsupportedError, message)
    ran_flag = to_value(ran) if ran is not None else lambda: _for_loop_runs(bounds)
    _register_loop_aliases(result, lifted, body, keeps_init, ran_flag, names)
    return result


def _may_keep_init(init: list[object], carried: list[object], body: Body) -> list[int]:
    """Carried arrays a loop that runs 0 times leaves as the arrays they came
    in as, where an iteration makes them other arrays, and whose memory
    something else reaches (an argument, a view, another name): NumPy's name
    is then still that memory (tracer/aliases.py)."""
    return [i for i, c in enumerate(init) if isinstance(c, Tracer) and not c._scalar
            and carried[i] is c and body.same_as_arg[i] != i and shared_memory(c)]


def _for_loop_runs(bounds: Sequence[Value]) -> Value:
    """Whether ``for i in range(start, stop, step)`` runs at least once."""
    start, stop, step = bounds
    builder, loc = current().builder, user_location()
    zero = current().constant(0)
    up = builder.emit(ops.greater, (step, zero), {}, loc=loc).output
    rising = builder.emit(ops.less, (start, stop), {}, loc=loc).output
    falling = builder.emit(ops.less, (stop, start), {}, loc=loc).output
    return builder.emit(ops.where, (up, rising, falling), {}, loc=loc).output


def _register_loop_aliases(result: list[object], init: list[object], body: Body,
                           keeps_init: list[int], ran: aliases.Flag,
                           names: Sequence[str]) -> None:
    """Record the outer arrays each carried variable may be after the loop:
    the one it came in as where the loop ran 0 times (``ran``: whether it
    ran), the outer view an iteration binds it to, and those an if in the body
    may leave it as (on paths jitaic cannot name when it runs)."""
    for i, c in enumerate(init):
        leaf = result[i] if i < len(result) else None
        if not isinstance(leaf, Tracer) or leaf is c:
            continue
        viewed = body.outer_array[i]
        if viewed is not None and isinstance(c, Tracer) and body.kind[i] is False \
                and same_view(viewed, (c._buffer, c._view)):
            # bound to the same view of an outer array before and in the
            # loop: still that view, which later writes into the array reach
            result[i] = Tracer(c._buffer, c._view)
            continue
        name = names[i] if i < len(names) else f"#{i}"
        merged = leaf._buffer
        if i in keeps_init:
            aliases.register(merged, c._buffer, c._view, ran, name, "loop", negated=True)
        if viewed is not None:  # (a view bound each iteration may differ between them)
            aliases.register(merged, *viewed, None, name, "loop")
        for alias in body.nested[i]:
            if alias.outer.depth < body.depth:
                aliases.register(merged, alias.outer, alias.view, None, name, "loop")
            elif isinstance(c, Tracer) and not c._scalar:  # maybe the array it came in as
                aliases.register(merged, c._buffer, c._view, None, name, "loop")


def _holds_tracers(value: object) -> bool:
    """A tuple, list or dict with a traced value among its items."""
    if isinstance(value, (tuple, list)):
        return any(isinstance(v, Tracer) or _holds_tracers(v) for v in value)
    if isinstance(value, dict):
        return _holds_tracers(list(value.values()))
    return False


def _loop_of_leaves(op: ops.Op, body_fn: Callable, cond_fn: Callable | None,
                    init: Sequence[object], bounds: Sequence[Value], names: Sequence[str],
                    index_range: range | None, observed: Sequence[str]) -> list:
    """The loop with its tuple, list and dict variables carried item by item
    (``state = (x, v)`` rebound each iteration); an iteration that gives one
    of them another structure is refused."""
    from jitaic.tracer.trace import flatten, unflatten

    lead = 1 if op is ops.for_loop else 0
    names = _padded(names, len(init))
    trees, leaves, leaf_names = [], [], []
    for value, name in zip(init, names, strict=True):
        items, tree = flatten(value)
        trees.append((tree, len(items)))
        leaves += items
        leaf_names += [name] * len(items)

    def regroup(flat: Sequence[object]) -> list:
        out, k = [], 0
        for tree, n in trees:
            out.append(unflatten(tree, flat[k:k + n]))
            k += n
        return out

    def body(*args):
        new = []
        for value, (tree, _), name in zip(body_fn(*args[:lead], *regroup(args[lead:])),
                                          trees, names, strict=True):
            items, after = flatten(value)
            if after != tree:
                raise UnsupportedError(
                    f"loop variable {name!r} changes its structure in the loop (a tuple, "
                    f"list or dict of other items or length){at(user_location())}: a "
                    f"compiled loop carries the same items each iteration")
            new += items
        return new

    test = None if cond_fn is None else (lambda *flat: cond_fn(*regroup(flat)))
    return regroup(_loop(op, body, test, leaves, bounds, leaf_names, index_range, observed))


def _settle(body_fn: Callable, carried: list[object], leading: Sequence[TensorType],
            index_range: range | None, names: Sequence[str]) -> tuple:
    """The fixed point of carried types and arrays written: the carried values
    (cast to the types the loop carries), the outer arrays it writes, and the
    body traced with them. Where the loop carries a variable in another dtype
    than it comes in with, the body traced on the dtypes it comes in with (the
    first iteration's, in NumPy) must compute what it computes on the carried
    ones (else ``_FirstIterationDiffers``)."""
    buffers: list[Buffer] = []
    first_iteration = None  # the body traced on the dtypes the variables come in with
    for attempt in range(8):
        try:
            body = trace_body(body_fn, carried, buffers, leading, index_range=index_range)
        except NUMPY_ERRORS as exc:
            if not numpys_error(exc):
                raise
            if attempt:  # with the types a first iteration made
                raise _LaterIterationError(exc) from exc
            # NumPy's error on the first iteration: raised if the loop runs at all
            raise _FirstIterationError(exc, carried) from exc
        first = _first_assigned(carried, body)
        if first is not None:  # assigned in the loop, undefined before: start from zeros
            carried = first
            continue
        first_iteration = first_iteration or body
        widened = _widen(carried, body, names, len(leading))
        new = [b for b, _ in body.written.values() if b not in buffers]
        if not new and widened is None:
            carried_count = len(leading) + sum(isinstance(c, Tracer) for c in carried)
            differing = _first_difference(first_iteration, body, carried_count)
            if differing is not None:
                raise _FirstIterationDiffers(differing)
            return carried, buffers, body
        buffers += new
        carried = widened or carried
    raise UnsupportedError(f"loop-carried types do not settle{at(user_location())}")


class _FirstIterationDiffers(Exception):
    """A loop variable that the loop carries in a wider dtype than it comes in
    with, read by an operation whose result depends on that dtype: NumPy's
    first iteration computes it in the dtype the variable came in with."""

    def __init__(self, node: Node) -> None:
        super().__init__(
            f"a loop variable comes into the loop in another dtype than iterations "
            f"leave it in, and {node.op.name}{computed_at(node.outputs[0])} computes with "
            f"it in a way that depends on that dtype ({_dtypes(node)}): jitaic compiles "
            f"such a loop over a constant range only (cast the variable to the dtype "
            f"the loop gives it before the loop)")


def _dtypes(node: Node) -> str:
    return ", ".join(str(v.dtype) for v in node.inputs)


def _first_difference(first: Body, settled: Body, carried_count: int) -> Node | None:
    """The first node of ``first`` (the body traced on the dtypes the loop
    variables come in with) that computes otherwise than its counterpart in
    ``settled`` (traced on the dtypes the loop carries), or None. Only where
    a variable's dtype changed: traces that differ in shapes alone (a length
    known at run time) compute in the same dtypes."""
    def dtypes(body: Body) -> list[np.dtype]:
        return [p.type.dtype for p in body.region.params[:carried_count]]

    if first is settled or dtypes(first) == dtypes(settled):
        return None
    mine, theirs = list(first.region.walk()), list(settled.region.walk())
    for a, b in zip(mine, theirs):
        if a.op is not b.op or not _computes_alike(a, b):
            return a
    return mine[0] if len(mine) != len(theirs) and mine else None


# Ops that cast their operands to their result's dtype and move the values
_CASTING = frozenset({ops.astype, ops.where, ops.concatenate})


def _computes_alike(a: Node, b: Node) -> bool:
    """Whether node ``a`` of the first iteration's body, whose operands' dtypes
    may be narrower than ``b``'s, computes the values ``b`` computes from them
    (once cast to ``b``'s operand dtypes): the same operation in the same
    dtypes, each operand cast exactly or straight to the dtype it is computed in."""
    mine, theirs = [v.dtype for v in a.inputs], [v.dtype for v in b.inputs]
    if mine == theirs:
        return [v.dtype for v in a.outputs] == [v.dtype for v in b.outputs]
    if ops.VIEW in a.op.traits or ops.HAS_REGION in a.op.traits:
        return True  # moves values (a region's own nodes are compared in turn)
    if a.op.ufunc is not None:
        computed = ops.ufunc_loop_dtypes(a.op.ufunc, [v.type for v in a.inputs])
        if computed != ops.ufunc_loop_dtypes(b.op.ufunc, [v.type for v in b.inputs]):
            return False
    elif a.op in _CASTING and a.outputs[0].dtype == b.outputs[0].dtype:
        computed = [a.outputs[0].dtype] * len(mine)
    else:
        return False
    return all(x == y or y == c or _holds_exactly(y, x) and np.can_cast(x, y)
               for x, y, c in zip(mine, theirs, computed))


def _handed_on(init: list[object], carried: list[object], body: Body) -> list[int]:
    """Carried arrays that every iteration hands on as they are (``b += x``):
    the name denotes the array it came in with throughout, and other names may
    view that array (``b = a`` before the loop, the same argument passed twice)."""
    return [i for i, k in enumerate(body.same_as_arg)
            if k == i and i < len(init) and carried[i] is init[i]
            and isinstance(init[i], Tracer) and not init[i]._scalar]


class _NotInPlace(Exception):
    """A variable handed on as it is in one trace of the body is rebound in another."""


def _loop_in_place(positions: list[int], op: ops.Op, body_fn: Callable,
                   cond_fn: Callable | None, init: Sequence[object],
                   bounds: Sequence[Value], names: Sequence[str],
                   index_range: range | None, observed: Sequence[str],
                   n_leading: int) -> list:
    """The loop without the carried variables at ``positions``: the body reads
    and writes their arrays as outer arrays, which the loop carries, so every
    name and view of such an array sees each write as it happens."""
    fixed = {i: init[i] for i in positions}

    def spliced(rest: Sequence[object]) -> list[object]:
        it = iter(rest)
        return [fixed[i] if i in fixed else next(it) for i in range(len(init))]

    def others(xs: Sequence[object]) -> list[object]:
        return [x for i, x in enumerate(xs) if i not in fixed]

    def body(*args):
        out = body_fn(*args[:n_leading], *spliced(args[n_leading:]))
        leaves = list(out) if isinstance(out, (tuple, list)) else [out]
        if any(leaves[i] is not x for i, x in fixed.items()):
            raise _NotInPlace
        return others(leaves)

    test = None if cond_fn is None else (lambda *rest: cond_fn(*spliced(rest)))
    rest = _loop(op, body, test, others(init), bounds, others(_padded(names, len(init))),
                 index_range, observed)
    return spliced(rest)


class _FirstIterationError(Exception):
    """NumPy's error, raised by the body on its first iteration."""

    def __init__(self, error: Exception, carried: list[object]) -> None:
        super().__init__(str(error))
        self.error, self.carried = error, carried


class _LaterIterationError(Exception):
    """NumPy's error, raised by the body with the types an iteration made."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def _peeled(body_fn: Callable, carried: list[object], index_range: range,
            names: Sequence[str], observed: Sequence[str]) -> list:
    """The first iteration of a constant range on its own, then a loop over
    the rest: each iteration meets the types NumPy's would (the second may
    then raise NumPy's error, when it runs); an empty range leaves them."""
    if not index_range:
        return list(carried)
    first = list(body_fn(index_range[0], *carried))
    rest = index_range[1:]
    if not rest:
        return first
    return for_loop(rest.start, rest.stop, rest.step, body_fn, first, names, observed)


def _padded(names: Sequence[str], n: int) -> list[str]:
    return [names[i] if i < len(names) else f"#{i}" for i in range(n)]


_PYTHON_NUMBER = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}


def _trip_dependent(init: list[object], carried: list[object], body: Body,
                    names: Sequence[str], observed: Sequence[str]) -> dict[int, str]:
    """Per observed variable that a loop running 0 times would leave with
    another dtype than any iteration does (NumPy's dtype depends on the trip
    count): the refusal to raise when it runs 0 times."""
    traced = _traced_positions(body)
    differing = {}
    for i, (start, name) in enumerate(zip(init, _padded(names, len(init)), strict=True)):
        if name not in observed or i not in traced or not isinstance(carried[i], Tracer) \
                or not isinstance(start, (Tracer, np.ndarray)):
            continue
        before = to_value(start)
        after = _dtype_after(carried[i].aval, traced[i].type)
        python_number = carried[i].aval.weak  # (an iteration makes it one)
        if (after != before.dtype or python_number) and not before.type.weak:
            what, fix = (f"a Python {_PYTHON_NUMBER[after.kind]}", "make it a Python number "
                         "before the loop too") if python_number else (
                after, "cast it to one dtype before the loop (.astype)")
            differing[i] = (
                f"loop variable {name!r} has dtype {before.dtype} before the loop"
                f"{computed_at(before)} and {what} after an iteration"
                f"{computed_at(traced[i])}: the loop ran 0 times, and jitaic compiles "
                f"the type of the iterations; {fix}")
    return differing


def _counting_trips(body_fn: Callable, cond_fn: Callable | None) -> tuple:
    """The body and test of a loop that also carries a flag: whether it ran."""
    def body(*args):
        out = body_fn(*args[:-1])
        return [*(out if isinstance(out, (tuple, list)) else [out]), np.True_]

    test = None if cond_fn is None else (lambda *carried: cond_fn(*carried[:-1]))
    return body, test


def _emit_loop(op: ops.Op, body: Body, cond_fn: Callable | None, carried: list[object],
               buffers: list[Buffer], bounds: Sequence[Value]) -> list:
    # each iteration hands on values of the carried types (a bool computed into
    # an int32 variable is cast, as the widening decided)
    carried_types = [to_value(c).type for c in carried if isinstance(c, Tracer)]
    regions = [cast_results(body.region, [*carried_types, *(b.value.type for b in buffers)])]
    if cond_fn is not None:
        test = trace_body(cond_fn, carried, buffers)
        if test.written:
            raise UnsupportedError(f"a while condition may not write arrays"
                                   f"{at(user_location())}")
        region = with_results(test.region, test.region.results[:1])  # the test only
        regions.insert(0, cast_results(region, [TensorType((), np.bool_)]))
    kinds = _carried_kinds(carried, body)
    regions = [_with_kind_flags(r, kinds, r is regions[-1]) for r in regions]
    init_values = [to_value(c) for c in carried if isinstance(c, Tracer)]
    outs = emit_node(op, [*bounds, *init_values, *(b.value for b in buffers),
                      *(before for before, _ in kinds.values())], regions)
    outs, flags = outs[:len(outs) - len(kinds)], outs[len(outs) - len(kinds):]
    n = len(outs) - len(buffers)
    update_buffers(buffers, outs[n:])
    result = output_leaves(outs[:n], body.out_static, carried)
    for i, k in enumerate(body.same_as_arg):
        c = carried[i] if i < len(carried) else None
        if k == i and isinstance(c, Tracer) and not c._scalar:
            # `x /= 2` in the body: the name still denotes the caller's array,
            # which NumPy updated in place.
            c.write(result[i].value)
            result[i] = c
    result = _as_computed(result, [r.type for r in body.region.results[:len(carried_types)]])
    for i, flag in zip(kinds, flags, strict=True):
        result[i]._scalar, result[i]._kind = True, flag
    return result


def _carried_kinds(carried: list[object], body: Body) -> dict[int, tuple[Value, Value]]:
    """Per 0-d carried variable whose kind (a NumPy scalar or a 0-d array) an
    iteration changes: bools saying which it is before the loop and after an
    iteration, carried along so it leaves the loop as NumPy's would."""
    traced = traced_by_position(body)
    kinds = {}
    for i, c in enumerate(carried):
        if i not in traced or not isinstance(c, Tracer) or c.ndim:
            continue
        before, after = kind_of(c), body.kind[i]
        if body.same_as_arg[i] == i:  # handed on as it is: its kind too
            after = None
        if before is not after and (after is not None or isinstance(before, Value)):
            kinds[i] = (as_flag(before), None if after is None else as_flag(after))
    return kinds


def _with_kind_flags(region: Region, kinds: dict, is_body: bool) -> Region:
    """A loop region with a parameter per carried kind flag (and, the body,
    each flag's value after an iteration as a result: its parameter where the
    variable is handed on unchanged)."""
    flags = tuple(Value(TensorType((), np.bool_)) for _ in kinds)
    after = tuple(p if a is None else a for p, (_, a) in zip(flags, kinds.values(),
                                                             strict=True)) if is_body else ()
    return Region((*region.params, *flags), region.nodes, (*region.results, *after))


def _as_computed(result: list, computed: list[TensorType]) -> list:
    """A carried variable widened past what its iterations compute (an int64
    start, a float32 sum each iteration: float64) leaves the loop with the
    dtype an iteration computes, as NumPy's does after any iteration; the
    widened values hold those exactly."""
    traced = [i for i, r in enumerate(result) if isinstance(r, Tracer)]
    for i, t in zip(traced, computed, strict=True):
        dtype = _dtype_after(result[i].aval, t)
        if dtype != result[i].dtype:
            from jitaic.tracer.numpy import astype

            result[i] = astype(result[i], dtype)
    return result


def _dtype_after(carried: TensorType, computed: TensorType) -> np.dtype:
    """The dtype a variable leaves the loop with, given the type the loop
    carries it in and the one an iteration computes."""
    if computed.dtype != carried.dtype and not (computed.weak or carried.weak):
        return computed.dtype
    return carried.dtype


def _failing_loop(error: Exception, body_fn: Callable, cond_fn: Callable | None,
                  bounds: Sequence[Value], carried: list[object], names: Sequence[str]) -> list:
    """A loop whose body raises ``error`` (a static error NumPy raises on the
    first iteration): it raises when the loop would run, after what the first
    iteration checks before it gets there (``a[i] += ...`` checks ``i`` before
    the cast), and leaves the carried values as they are when it would not (a
    loop that runs 0 times)."""
    from jitaic.tracer.numpy import as_tracer

    if cond_fn is not None:
        runs, leading = cond_fn(*carried), ()
    else:
        start, stop, step = (new_tracer(b, scalar=True) for b in bounds)
        runs, leading = ((step > 0) & (start < stop)) | ((step < 0) & (start > stop)), (start,)

    def first_iteration(*carried: object) -> list:
        try:
            body_fn(*leading, *carried)
        except type(error):  # the same error, once the first iteration's checks are emitted
            pass
        raise_when_run(error)
        return list(carried)

    return cond(as_tracer(runs), first_iteration, unchanged_values, carried, names)


def _first_assigned(carried: list[object], body: Body) -> list | None:
    """Carried values that are static (e.g. undefined) but arrays after the body."""
    from jitaic.tracer.numpy import full_value

    traced = _traced_positions(body)
    out, changed = list(carried), False
    for i, c in enumerate(carried):
        if not isinstance(c, Tracer) and not isinstance(c, TRACEABLE) and i in traced:
            t = traced[i].type
            out[i] = full_value(t.shape, 0, t.dtype) if t.ndim else new_tracer(
                current().constant(np.zeros((), t.dtype)), scalar=True)
            changed = True
    return out if changed else None


def _traced_positions(body: Body) -> dict[int, Value]:
    it = iter(body.region.results)
    return {i: next(it) for i, s in enumerate(body.out_static) if s is None}


def _widen(carried: list[object], body: Body, names: Sequence[str],
           lead: int) -> list | None:
    """Carried values retyped to what the body produces, or None if they agree."""
    traced = [c for c in carried if isinstance(c, Tracer)]
    results = body.region.results[: len(traced)]
    params = body.region.params[lead:lead + len(traced)]
    changed = False
    out, it = [], iter(zip(traced, results, params, strict=True))
    for i, c in enumerate(carried):
        if not isinstance(c, Tracer):
            out.append(c)
            continue
        tracer, result, param = next(it)
        name = names[i] if i < len(names) else f"#{i}"
        joined = joined_type(tracer.value, result, f"loop variable {name}")
        read = _read_in(body.region, param)
        if joined.weak and not tracer.aval.weak and read:
            # the first iteration reads the NumPy value it came in with: keep its type
            joined = TensorType(joined.shape, np.result_type(
                tracer.dtype, example_value(result.type)), False)
        elif not read and not (joined.weak or result.type.weak):
            # iterations compute it afresh: carried in their dtype, which holds
            # it exactly (int64 and uint64 join to float64, which does not)
            joined = TensorType(joined.shape, result.dtype, False)
        if not _holds_exactly(joined.dtype, result.dtype):
            raise _InexactCarry(name, tracer.value, result, joined.dtype)
        if joined.shape != tracer.shape:  # a view: writes reach the array it came in as
            from jitaic.tracer.numpy.common import view

            index = run_time_index(tracer.shape, joined.shape)
            tracer = view(tracer, (ViewStep(ops.dyn_getitem, (("index", index),)),))
            changed = True
        if joined.weak and not tracer.aval.weak:  # a Python number from here on
            tracer = emit(ops.astype, [tracer], {"dtype": joined.dtype, "weak": True},
                          scalar=tracer._scalar)
            changed = True
        elif joined.dtype != tracer.dtype:
            from jitaic.tracer.numpy import astype

            tracer = astype(tracer, joined.dtype)
            changed = True
        out.append(tracer)
    return out if changed else None


def _holds_exactly(carried: np.dtype, computed: np.dtype) -> bool:
    """Whether every value of ``computed`` survives a round trip through
    ``carried`` (NumPy's promotion of int64 and uint64, or of a 64-bit integer
    and a float, is float64: 53 bits of mantissa)."""
    carried, computed = np.dtype(carried), np.dtype(computed)
    if computed.kind not in "iu" or carried.kind not in "fc":
        return True
    bits = computed.itemsize * 8 - (computed.kind == "i")
    return bits <= np.finfo(carried).nmant + 1


class _InexactCarry(Exception):
    """A loop variable whose first iteration reads it in one dtype and whose
    iterations compute it in an integer dtype that the joined dtype (a float)
    does not hold exactly."""

    def __init__(self, name: str, before: Value, after: Value, joined: np.dtype) -> None:
        super().__init__(
            f"loop variable {name} has dtype {before.dtype} before the loop"
            f"{computed_at(before)} and {after.dtype} after an iteration"
            f"{computed_at(after)}, and the first iteration reads it: one dtype to carry "
            f"both would be {joined}, which does not hold every {after.dtype} value; "
            f"jitaic compiles such a loop over a constant range only (cast it to "
            f"{after.dtype} before the loop)")


def _read_in(region: Region, v: Value) -> bool:
    """Whether the region reads ``v`` (in any of its nodes, or as a result)."""
    return any(x is v for node in region.walk() for x in node.inputs) or any(
        r is v for r in region.results)


def while_loop(cond_fn: Callable, body_fn: Callable, init: Sequence[object],
               names: Sequence[str] = (), observed: Sequence[str] = ()) -> list:
    """``while cond_fn(*carried): carried = body_fn(*carried)``; ``observed``
    names the variables read after the loop (see ``_loop``)."""
    return _loop(ops.while_loop, body_fn, cond_fn, init, (), names, observed=observed)


def for_loop(start: object, stop: object, step: object, body_fn: Callable,
             init: Sequence[object], names: Sequence[str] = (),
             observed: Sequence[str] = ()) -> list:
    """``for i in range(start, stop, step): carried = body_fn(i, *carried)``."""
    from jitaic.tracer.numpy import as_tracer, astype

    static = [b for b in (start, stop, step) if isinstance(b, (int, np.integer))
              and not isinstance(b, (bool, np.bool_))]
    index_range = range(*map(int, static)) if len(static) == 3 and step else None
    bounds = [astype(as_tracer(b), np.int64).value for b in (start, stop, step)]
    return _loop(ops.for_loop, body_fn, None, init, bounds, names, index_range, observed)
