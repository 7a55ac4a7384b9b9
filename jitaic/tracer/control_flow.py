"""Structured control flow on Tracers: cond, while_loop and for_loop.

Each body is traced into its own Region. Values from enclosing scopes may be
read directly inside a body. Arrays from enclosing scopes that a body writes
in place (``x[i] = ...``) are found from the trace's write log and become
extra results (cond) or extra loop-carried values (loops), so NumPy's
in-place semantics hold across control flow. Loop-carried types are a fixed
point: ``acc = 0`` followed by ``acc += x[i]`` carries a float64.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from jitaic.errors import (
    JitaicError,
    PathShapeError,
    ShapeError,
    UnsupportedError,
    at,
    user_location,
)
from jitaic.ir import ops
from jitaic.ir.graph import Region, Value, make_node
from jitaic.ir.types import TensorType, example_value
from jitaic.tracer import aliases
from jitaic.tracer.aliases import Alias
from jitaic.tracer.core import Buffer, Tracer, ViewStep, current, new_tracer, to_value
from jitaic.tracer.rebound_writes import refuse_lost_writes, shared_memory

_TRACEABLE = (Tracer, np.ndarray, np.generic, bool, int, float, complex)


@dataclass
class _Body:
    region: Region
    out_static: list[object]  # per output leaf: None if traced, else the static value
    written: dict[int, tuple[Buffer, Value]]  # outer buffers written: final inner value
    same_as_arg: list[int | None]  # per output leaf: index of the argument returned as is
    outer_view: list[bool]  # per output leaf: an array (or view of one) from outside
    # per output leaf: a NumPy scalar (True), an array (False), or a run-time
    # bool Value saying which (a leaf of a nested if)
    kind: list[bool | Value]
    # per argument: the body writes into the array it gets (x[i] = v, x += 1)
    writes_arg: list[bool] = field(default_factory=list)
    # per output leaf: (buffer, view steps) of an array from outside (or a view
    # of one) that NumPy would hold as an array on some path, else None
    outer_array: list[tuple[Buffer, tuple] | None] = field(default_factory=list)
    # per output leaf: the arrays it may be on some paths of an if or loop in the
    # body (tracer/aliases.py)
    nested: list[list[Alias]] = field(default_factory=list)
    depth: int = 0  # the body's region depth


def _trace_body(fn: Callable, args: Sequence[object], carried: Sequence[Buffer] = (),
                leading: Sequence[TensorType] = (), bind_params: bool = True,
                index_range: range | None = None) -> _Body:
    """Trace ``fn(*leading, *args)`` into a Region (static args stay Python values).

    ``index_range`` is the values a for loop's index (the first leading
    parameter) takes, when its bounds are static: indexing uses it to prove
    that a window ``x[i:i + 3]`` always fits.

    With ``bind_params=False`` traced args are passed through unchanged: the
    body reads them as outer values (a branch runs at most once, so it needs no
    parameters, and writes through views of outer arrays keep reaching them).
    """
    ctx = current()
    for a in args:  # a view's node goes here, outside, not where the body first reads it
        if isinstance(a, Tracer):
            _ = a.value
    ctx.builder.open_block()
    ctx.write_logs.append({})
    params: list[Value] = [Value(t) for t in leading]
    if index_range:
        ctx.index_bounds[params[0]] = (min(index_range), max(index_range))
    saved = [(b, b.value, b.version) for b in carried]
    try:
        inner = [new_tracer(p) for p in params]
        for a in args:
            if isinstance(a, Tracer) and bind_params:
                params.append(Value(a.aval))
                inner.append(new_tracer(params[-1], scalar=a._scalar))
            else:
                inner.append(a)
        for b in carried:
            params.append(Value(b.value.type))
            b.value, b.version = params[-1], b.version + 1
        out = fn(*inner)
        leaves = list(out) if isinstance(out, (tuple, list)) else [out]
        args_inner = inner[len(leading):]
        writes_arg = [isinstance(a, Tracer) and bind_params and a._buffer.version > 0
                      for a in args_inner]
        same = [next((k for k, a in enumerate(args_inner) if a is leaf
                      and isinstance(a, Tracer)), None) for leaf in leaves]
        outer = [isinstance(leaf, Tracer) and leaf._buffer.depth < ctx.depth
                 for leaf in leaves]
        results, static = [], []
        for leaf in leaves:
            if isinstance(leaf, _TRACEABLE):
                results.append(to_value(leaf))
                static.append(None)
            else:
                static.append(leaf)
        nested = [list(leaf._buffer.may_be) if isinstance(leaf, Tracer) else []
                  for leaf in leaves]
        depth = ctx.depth
        log = ctx.write_logs[-1]
        written = {k: (buf, buf.value) for k, (buf, _, _) in log.items()}
        results += [b.value for b in carried]
    finally:
        nodes = ctx.builder.close_block()
        for buf, value, version in ctx.write_logs.pop().values():
            buf.value, buf.version = value, version
        for buf, value, version in saved:
            buf.value, buf.version = value, version
    for k in [k for k in written if any(id(b) == k for b in carried)]:
        del written[k]
    kinds = [_kind_of(leaf) for leaf in leaves]
    arrays = [(leaf._buffer, leaf._view) if is_outer and kind is not True else None
              for leaf, is_outer, kind in zip(leaves, outer, kinds, strict=True)]
    return _Body(Region(tuple(params), nodes, tuple(results)), static, written, same, outer,
                 kinds, writes_arg, arrays, nested, depth)


def _kind_of(leaf: object) -> bool | Value:
    """Whether NumPy would hold ``leaf`` as a scalar (True) or an array."""
    if isinstance(leaf, Tracer):
        return leaf._kind if leaf._kind is not None else leaf._scalar
    return not isinstance(leaf, np.ndarray)


def _with_results(region: Region, results: Sequence[Value]) -> Region:
    return Region(region.params, region.nodes, tuple(results))


def _cast_results(region: Region, types: Sequence[TensorType]) -> Region:
    """Append casts so the region's results have exactly these types."""
    nodes, results, loc = list(region.nodes), [], user_location()
    for v, t in zip(region.results, types, strict=True):
        if v.dtype != t.dtype:
            node = make_node(ops.astype, [v], {"dtype": t.dtype}, loc=loc)
            nodes.append(node)
            v = node.output
        if v.shape != t.shape and v.type.ndim == t.ndim:
            node = make_node(ops.dyn_getitem, [v], {"index": _run_time_index(v.shape, t.shape),
                                                    "bounded": True}, loc=loc)
            nodes.append(node)
            v = node.output
        elif v.shape != t.shape:
            node = make_node(ops.broadcast_to, [v], {"shape": t.shape}, loc=loc)
            nodes.append(node)
            v = node.output
        results.append(v)
    return Region(region.params, tuple(nodes), tuple(results))


def _joined(va: Value, vb: Value, what: str, branches: bool = False) -> TensorType:
    """The type of a variable that two paths (branches, or a loop's entry and its
    next iteration) give values ``va`` and ``vb``: their dtypes join (a loop's
    variable widens to what its iterations compute), their shapes must agree,
    and the branches of an if must agree on the dtype of arrays (NumPy's
    would depend on the data); the errors name where each value was computed."""
    a, b = va.type, vb.type
    if a.ndim != b.ndim:
        raise PathShapeError(f"{what} has shape {a.shape} on one path{_computed_at(va)} and "
                             f"{b.shape} on the other{_computed_at(vb)}{at(user_location())}; "
                             f"jitaic needs the same number of dimensions on every path")
    # an axis whose length differs between the paths has a run-time length
    shape = tuple(m if m == n else None for m, n in zip(a.shape, b.shape, strict=True))
    if branches and a.dtype != b.dtype and not (a.weak or b.weak):
        raise UnsupportedError(
            f"{what} has dtype {a.dtype} on one path{_computed_at(va)} and {b.dtype} on the "
            f"other{_computed_at(vb)}{at(user_location())}: its dtype would depend on the "
            f"data; cast both to one dtype (.astype)")
    # A weak (Python scalar) start value takes the type the loop computes (NEP 50).
    dtype = np.result_type(example_value(a) if a.weak else a.dtype,
                           example_value(b) if b.weak else b.dtype)
    return TensorType(shape, dtype, a.weak and b.weak)


def _run_time_index(have: tuple, want: tuple) -> tuple:
    """The whole-array index that gives an array of shape ``have`` the
    run-time lengths ``want`` marks (None): the same values."""
    return tuple((ops.RANGE, None, None, 1) if w is None else (0, h, 1)
                 for h, w in zip(have, want, strict=True))


def _computed_at(v: Value) -> str:
    loc = v.producer.loc if v.producer is not None else None
    return f" (computed at {loc})" if loc is not None else ""


def _emit(op: ops.Op, inputs: Sequence[Value], regions: Sequence[Region],
          attrs: dict | None = None) -> list[Value]:
    node = current().builder.emit(op, inputs, attrs or {}, tuple(regions), loc=user_location())
    return list(node.outputs)


def _update_buffers(buffers: Sequence[Buffer], values: Sequence[Value]) -> None:
    ctx = current()
    for buf, value in zip(buffers, values, strict=True):
        ctx.log_write(buf)
        buf.value, buf.version = value, buf.version + 1


def _outputs(values: list[Value], static: list[object], like: Sequence[object] = ()) -> list:
    """Python results: static leaves as they were, traced ones as new Tracers."""
    it = iter(values)
    out = []
    for i, s in enumerate(static):
        if s is not None:
            out.append(s)
            continue
        value = next(it)
        original = like[i] if i < len(like) else None
        as_array = isinstance(original, np.ndarray) or (
            isinstance(original, Tracer) and not original._scalar)
        out.append(new_tracer(value, scalar=value.type.ndim == 0 and not as_array))
    return out


# ---------------------------------------------------------------- cond

def cond(pred: object, then_fn: Callable, else_fn: Callable, operands: Sequence[object],
         names: Sequence[str] = (), undefined: object = None,
         fill_undefined: Sequence[str] = ()) -> list:
    """``then_fn(*operands)`` or ``else_fn(*operands)``, chosen at run time.

    Outputs that are static Python values must agree between the branches,
    except ``undefined`` (a variable only one branch assigns), which wins;
    for the names in ``fill_undefined`` the assigned value wins instead, and
    the other branch gives zeros of its type.
    """
    pred = to_value(pred)
    if pred.dtype != np.bool_:
        pred = current().builder.emit(ops.not_equal, [pred, current().constant(0)]).output
    then_b, then_error = _trace_branch(then_fn, operands)
    else_b, else_error = _trace_branch(else_fn, operands)
    if then_error is not None and else_error is not None:  # NumPy fails on either path
        bodies = [_trace_body(_failing(error, fn, _unchanged), operands, bind_params=False)
                  for error, fn in ((then_error, then_fn), (else_error, else_fn))]
        _emit(ops.cond, [pred], [_with_results(b.region, []) for b in bodies])
        raise then_error  # what follows never runs: where it is traced, the cond raises
    if then_error is not None:
        then_b = _trace_body(_failing(then_error, then_fn, else_fn), operands,
                             bind_params=False)
    if else_error is not None:
        else_b = _trace_body(_failing(else_error, else_fn, then_fn), operands,
                             bind_params=False)
    for i, name in enumerate(names):
        if name in fill_undefined:
            _fill_undefined(then_b, else_b, i, undefined)
    plan = _join_outputs(then_b, else_b, names, undefined)
    buffers = {**{k: b for k, (b, _) in then_b.written.items()},
               **{k: b for k, (b, _) in else_b.written.items()}}
    kinds = _path_kinds(then_b, else_b, plan)
    regions = []
    for path, body in enumerate((then_b, else_b)):
        traced = _traced_by_position(body)
        results = [traced[i] for i, kind in enumerate(plan) if kind is None]
        results += [body.written.get(k, (b, b.value))[1] for k, b in buffers.items()]
        results += [flags[path] for flags in kinds.values()]
        regions.append(_with_results(body.region, results))
    labels = [names[i] if i < len(names) else f"#{i}" for i, k in enumerate(plan) if k is None]
    labels += [f"array written in a branch #{i}" for i in range(len(buffers))]
    labels += [f"kind of #{i}" for i in kinds]
    types = [_joined(a, b, f"variable {label}", branches=True) for a, b, label in
             zip(regions[0].results, regions[1].results, labels, strict=True)]
    regions = [_cast_results(r, types) for r in regions]
    outs = _emit(ops.cond, [pred], regions)
    outs, flags = outs[:len(outs) - len(kinds)], outs[len(outs) - len(kinds):]
    n = len(outs) - len(buffers)
    _update_buffers(list(buffers.values()), outs[n:])
    result = _outputs(outs[:n], plan)
    for i, leaf in enumerate(result):
        if isinstance(leaf, Tracer) and leaf.ndim == 0:
            a, b = then_b.kind[i], else_b.kind[i]
            leaf._scalar = a if a is b else True
    for i, flag in zip(kinds, flags, strict=True):
        result[i]._kind = flag
    for i, (a, b) in enumerate(zip(then_b.same_as_arg, else_b.same_as_arg, strict=True)):
        if a is not None and a == b:  # the same array on both paths (maybe updated in place)
            result[i] = operands[a]
        elif then_b.outer_array[i] is not None and then_b.kind[i] is False \
                and _same_view(then_b.outer_array[i], else_b.outer_array[i]):
            # the same view of one outer array on both paths: that view, which
            # later writes into the array reach (as NumPy's do)
            result[i] = Tracer(*then_b.outer_array[i])
        elif isinstance(result[i], Tracer):
            name = names[i] if i < len(names) else f"#{i}"
            for path, body in enumerate((then_b, else_b)):
                _register_paths(result[i], body, i, pred, path, name)
    return result


def _register_paths(merged: Tracer, body: _Body, i: int, pred: Value, path: int,
                    name: str) -> None:
    """Record the outer arrays output ``i`` of an if's branch ``path`` (0:
    where ``pred`` holds) may be (tracer/aliases.py): the one it views where
    that branch runs (a 0-d one whose kind is known at run time only: on paths
    jitaic cannot tell), and those of an if nested in the branch."""
    viewed = body.outer_array[i]
    if viewed is not None:
        flag = pred if body.kind[i] is False else None
        aliases.register(merged._buffer, *viewed, flag, name, "if", negated=path == 1)
    for alias in body.nested[i]:
        if alias.outer.depth < body.depth:  # an array from outside the if
            aliases.register(merged._buffer, alias.outer, alias.view, None, name, "if")


def if_of_values(pred: Value, then: Value, otherwise: Value) -> Value:
    """``then`` if ``pred`` holds when the code runs, else ``otherwise``: two
    values of one dtype and rank, whose axes of different lengths become
    run-time lengths."""
    shape = tuple(m if m == n else None
                  for m, n in zip(then.type.shape, otherwise.type.shape, strict=True))
    joined = otherwise.type.with_shape(shape)
    regions = [_cast_results(Region((), (), (v,)), [joined]) for v in (then, otherwise)]
    return _emit(ops.cond, [pred], regions)[0]


def _same_view(a: tuple[Buffer, tuple], b: tuple[Buffer, tuple] | None) -> bool:
    return b is not None and a[0] is b[0] and a[1] == b[1]


def _path_kinds(a: _Body, b: _Body, plan: list) -> dict[int, tuple[Value, Value]]:
    """Per 0-d output that is a NumPy scalar on one path and a 0-d array on the
    other (or a run-time kind on either): each branch's bool saying which."""
    kinds = {}
    for i, (x, y) in enumerate(zip(a.kind, b.kind, strict=True)):
        if plan[i] is None and x is not y and _traced_by_position(a)[i].type.ndim == 0:
            kinds[i] = (_as_flag(x), _as_flag(y))
    return kinds


# Errors NumPy raises from the values and shapes it meets (not jitaic's own
# limits): in a branch that may never run, they are that branch's run-time error.
_NUMPY_ERRORS = (TypeError, ValueError, IndexError, OverflowError)


def numpys_error(exc: Exception) -> bool:
    """An error NumPy raises from the values and shapes it meets (jitaic's
    shape checks included), not one of jitaic's refusals."""
    return isinstance(exc, _NUMPY_ERRORS) and not isinstance(exc, PathShapeError) and (
        not isinstance(exc, JitaicError) or isinstance(exc, ShapeError))


def _trace_branch(fn: Callable, operands: Sequence[object]) -> tuple:
    try:
        return _trace_body(fn, operands, bind_params=False), None
    except _NUMPY_ERRORS as exc:
        if not numpys_error(exc):
            raise
        return None, exc


def raise_when_run(error: Exception, unless: Tracer | None = None) -> None:
    """Emit a check that raises ``error`` (NumPy's type, its message) when
    the compiled code gets there (and ``unless``, a traced bool, is false)."""
    kind = next(c.__name__ for c in type(error).__mro__ if c.__name__ in ops.CHECK_ERRORS)
    ok = current().constant(np.bool_(False)) if unless is None else to_value(unless)
    current().builder.emit(ops.check, [ok], {"error": kind, "message": str(error)},
                           loc=user_location())


def _failing(error: Exception, fn: Callable, other_fn: Callable) -> Callable:
    """A branch ``fn`` that raises ``error`` when it runs, after what it
    checks before it gets there (``a[c] = v`` checks the index ``c`` before
    v's shape), with the other branch's outputs (it never gets to compute
    them) so the two join."""
    def branch(*operands):
        try:
            fn(*operands)
        except type(error):  # the same error, once the checks before it are emitted
            pass
        raise_when_run(error)
        return other_fn(*operands)

    return branch


def _fill_undefined(a: _Body, b: _Body, i: int, undefined: object) -> None:
    """Output ``i`` traced on one path and undefined on the other: zeros there."""
    for this, other in ((a, b), (b, a)):
        if _is_undefined(this.out_static[i], undefined) and other.out_static[i] is None:
            t = _traced_by_position(other)[i].type
            zeros = make_node(ops.full, [], {"shape": t.shape, "dtype": t.dtype, "fill": 0},
                              loc=user_location())
            position = sum(s is None for s in this.out_static[:i])
            results = list(this.region.results)
            results.insert(position, zeros.output)
            this.region = Region(this.region.params, (*this.region.nodes, zeros),
                                 tuple(results))
            this.out_static[i] = None


def _traced_by_position(body: _Body) -> dict[int, Value]:
    it = iter(body.region.results)
    return {i: next(it) for i, s in enumerate(body.out_static) if s is None}


def _is_undefined(x: object, undefined: object) -> bool:
    """``x`` is (a per-variable instance of) the ``undefined`` sentinel."""
    return undefined is not None and type(x) is type(undefined)


def _join_outputs(a: _Body, b: _Body, names: Sequence[str], undefined: object) -> list:
    """Per output: None if traced on both paths, else the static value it takes."""
    plan = []
    for i, (x, y) in enumerate(zip(a.out_static, b.out_static, strict=True)):
        if x is None and y is None:
            plan.append(None)
        elif _is_undefined(x, undefined) or _is_undefined(y, undefined):
            plan.append(x if _is_undefined(x, undefined) else y)
        elif x is not None and y is not None and (x is y or x == y):
            plan.append(x)
        else:
            name = names[i] if i < len(names) else f"#{i}"
            raise UnsupportedError(f"variable {name!r} gets different Python values (or an "
                                   f"array on one path only) in the branches of an if on a "
                                   f"traced value{at(user_location())}")
    return plan


# ---------------------------------------------------------------- loops

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


def _may_keep_init(init: list[object], carried: list[object], body: _Body) -> list[int]:
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


def _register_loop_aliases(result: list[object], init: list[object], body: _Body,
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
                and _same_view(viewed, (c._buffer, c._view)):
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
    body traced with them."""
    buffers: list[Buffer] = []
    for attempt in range(8):
        try:
            body = _trace_body(body_fn, carried, buffers, leading, index_range=index_range)
        except _NUMPY_ERRORS as exc:
            if attempt or not numpys_error(exc):
                raise
            # NumPy's error on the first iteration: raised if the loop runs at all
            raise _FirstIterationError(exc, carried) from exc
        first = _first_assigned(carried, body)
        if first is not None:  # assigned in the loop, undefined before: start from zeros
            carried = first
            continue
        widened = _widen(carried, body, names)
        new = [b for b, _ in body.written.values() if b not in buffers]
        if not new and widened is None:
            return carried, buffers, body
        buffers += new
        carried = widened or carried
    raise UnsupportedError(f"loop-carried types do not settle{at(user_location())}")


def _handed_on(init: list[object], carried: list[object], body: _Body) -> list[int]:
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


def _padded(names: Sequence[str], n: int) -> list[str]:
    return [names[i] if i < len(names) else f"#{i}" for i in range(n)]


def _trip_dependent(init: list[object], carried: list[object], body: _Body,
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
        if after != before.dtype and not before.type.weak:
            differing[i] = (
                f"loop variable {name!r} has dtype {before.dtype} before the loop"
                f"{_computed_at(before)} and {after} after an iteration"
                f"{_computed_at(traced[i])}: the loop ran 0 times, and jitaic compiles "
                f"the dtype of the iterations; cast it to one dtype before the loop "
                f"(.astype)")
    return differing


def _counting_trips(body_fn: Callable, cond_fn: Callable | None) -> tuple:
    """The body and test of a loop that also carries a flag: whether it ran."""
    def body(*args):
        out = body_fn(*args[:-1])
        return [*(out if isinstance(out, (tuple, list)) else [out]), np.True_]

    test = None if cond_fn is None else (lambda *carried: cond_fn(*carried[:-1]))
    return body, test


def _emit_loop(op: ops.Op, body: _Body, cond_fn: Callable | None, carried: list[object],
               buffers: list[Buffer], bounds: Sequence[Value]) -> list:
    # each iteration hands on values of the carried types (a bool computed into
    # an int32 variable is cast, as the widening decided)
    carried_types = [to_value(c).type for c in carried if isinstance(c, Tracer)]
    regions = [_cast_results(body.region, [*carried_types, *(b.value.type for b in buffers)])]
    if cond_fn is not None:
        test = _trace_body(cond_fn, carried, buffers)
        if test.written:
            raise UnsupportedError(f"a while condition may not write arrays"
                                   f"{at(user_location())}")
        region = _with_results(test.region, test.region.results[:1])  # the test only
        regions.insert(0, _cast_results(region, [TensorType((), np.bool_)]))
    kinds = _carried_kinds(carried, body)
    regions = [_with_kind_flags(r, kinds, r is regions[-1]) for r in regions]
    init_values = [to_value(c) for c in carried if isinstance(c, Tracer)]
    outs = _emit(op, [*bounds, *init_values, *(b.value for b in buffers),
                      *(before for before, _ in kinds.values())], regions)
    outs, flags = outs[:len(outs) - len(kinds)], outs[len(outs) - len(kinds):]
    n = len(outs) - len(buffers)
    _update_buffers(buffers, outs[n:])
    result = _outputs(outs[:n], body.out_static, carried)
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


def _carried_kinds(carried: list[object], body: _Body) -> dict[int, tuple[Value, Value]]:
    """Per 0-d carried variable whose kind (a NumPy scalar or a 0-d array) an
    iteration changes: bools saying which it is before the loop and after an
    iteration, carried along so it leaves the loop as NumPy's would."""
    traced = _traced_by_position(body)
    kinds = {}
    for i, c in enumerate(carried):
        if i not in traced or not isinstance(c, Tracer) or c.ndim:
            continue
        before, after = _kind_of(c), body.kind[i]
        if body.same_as_arg[i] == i:  # handed on as it is: its kind too
            after = None
        if before is not after and (after is not None or isinstance(before, Value)):
            kinds[i] = (_as_flag(before), None if after is None else _as_flag(after))
    return kinds


def _as_flag(kind: bool | Value) -> Value:
    return kind if isinstance(kind, Value) else to_value(np.bool_(kind))


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

    return cond(as_tracer(runs), first_iteration, _unchanged, carried, names)


def _unchanged(*carried: object) -> list:
    return list(carried)


def _first_assigned(carried: list[object], body: _Body) -> list | None:
    """Carried values that are static (e.g. undefined) but arrays after the body."""
    from jitaic.tracer.numpy import full_value

    traced = _traced_positions(body)
    out, changed = list(carried), False
    for i, c in enumerate(carried):
        if not isinstance(c, Tracer) and not isinstance(c, _TRACEABLE) and i in traced:
            t = traced[i].type
            out[i] = full_value(t.shape, 0, t.dtype) if t.ndim else new_tracer(
                current().constant(np.zeros((), t.dtype)), scalar=True)
            changed = True
    return out if changed else None


def _traced_positions(body: _Body) -> dict[int, Value]:
    it = iter(body.region.results)
    return {i: next(it) for i, s in enumerate(body.out_static) if s is None}


def _widen(carried: list[object], body: _Body, names: Sequence[str]) -> list | None:
    """Carried values retyped to what the body produces, or None if they agree."""
    traced = [c for c in carried if isinstance(c, Tracer)]
    results = body.region.results[: len(traced)]
    changed = False
    out, it = [], iter(zip(traced, results, strict=True))
    for i, c in enumerate(carried):
        if not isinstance(c, Tracer):
            out.append(c)
            continue
        tracer, result = next(it)
        name = names[i] if i < len(names) else f"#{i}"
        joined = _joined(tracer.value, result, f"loop variable {name}")
        if joined.shape != tracer.shape:  # a view: writes reach the array it came in as
            from jitaic.tracer.numpy.common import view

            index = _run_time_index(tracer.shape, joined.shape)
            tracer = view(tracer, (ViewStep(ops.dyn_getitem, (("index", index),)),))
            changed = True
        if joined.dtype != tracer.dtype:
            from jitaic.tracer.numpy import astype

            tracer = astype(tracer, joined.dtype)
            changed = True
        out.append(tracer)
    return out if changed else None


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
