"""Structured control flow on Tracers: what bodies share, and cond.

Each body (a branch here, a loop's body in ``loops.py``) is traced into its
own Region. Values from enclosing scopes may be read directly inside a body.
Arrays from enclosing scopes that a body writes in place (``x[i] = ...``) are
found from the trace's write log and become extra results (cond) or extra
loop-carried values (loops), so NumPy's in-place semantics hold across
control flow.
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
from jitaic.tracer.core import Buffer, Tracer, current, new_tracer, to_value

TRACEABLE = (Tracer, np.ndarray, np.generic, bool, int, float, complex)


@dataclass
class Body:
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


def trace_body(fn: Callable, args: Sequence[object], carried: Sequence[Buffer] = (),
                leading: Sequence[TensorType] = (), bind_params: bool = True,
                index_range: range | None = None) -> Body:
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
            if isinstance(leaf, TRACEABLE):
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
    kinds = [kind_of(leaf) for leaf in leaves]
    arrays = [(leaf._buffer, leaf._view) if is_outer and kind is not True else None
              for leaf, is_outer, kind in zip(leaves, outer, kinds, strict=True)]
    return Body(Region(tuple(params), nodes, tuple(results)), static, written, same, outer,
                 kinds, writes_arg, arrays, nested, depth)


def kind_of(leaf: object) -> bool | Value:
    """Whether NumPy would hold ``leaf`` as a scalar (True) or an array."""
    if isinstance(leaf, Tracer):
        return leaf._kind if leaf._kind is not None else leaf._scalar
    return not isinstance(leaf, np.ndarray)


def with_results(region: Region, results: Sequence[Value]) -> Region:
    return Region(region.params, region.nodes, tuple(results))


def cast_results(region: Region, types: Sequence[TensorType]) -> Region:
    """Append casts so the region's results have exactly these types."""
    nodes, results, loc = list(region.nodes), [], user_location()
    for v, t in zip(region.results, types, strict=True):
        if v.dtype != t.dtype:
            node = make_node(ops.astype, [v], {"dtype": t.dtype}, loc=loc)
            nodes.append(node)
            v = node.output
        if v.shape != t.shape and v.type.ndim == t.ndim:
            node = make_node(ops.dyn_getitem, [v], {"index": run_time_index(v.shape, t.shape),
                                                    "bounded": True}, loc=loc)
            nodes.append(node)
            v = node.output
        elif v.shape != t.shape:
            node = make_node(ops.broadcast_to, [v], {"shape": t.shape}, loc=loc)
            nodes.append(node)
            v = node.output
        results.append(v)
    return Region(region.params, tuple(nodes), tuple(results))


def joined_type(va: Value, vb: Value, what: str, branches: bool = False) -> TensorType:
    """The type of a variable that two paths (branches, or a loop's entry and its
    next iteration) give values ``va`` and ``vb``: their dtypes join (a loop's
    variable widens to what its iterations compute), their shapes must agree,
    and the branches of an if must agree on the dtype of arrays (NumPy's
    would depend on the data); the errors name where each value was computed."""
    a, b = va.type, vb.type
    if a.ndim != b.ndim:
        raise PathShapeError(f"{what} has shape {a.shape} on one path{computed_at(va)} and "
                             f"{b.shape} on the other{computed_at(vb)}{at(user_location())}; "
                             f"jitaic needs the same number of dimensions on every path")
    # an axis whose length differs between the paths has a run-time length
    shape = tuple(m if m == n else None for m, n in zip(a.shape, b.shape, strict=True))
    if branches and a.dtype != b.dtype and not (a.weak or b.weak):
        raise UnsupportedError(
            f"{what} has dtype {a.dtype} on one path{computed_at(va)} and {b.dtype} on the "
            f"other{computed_at(vb)}{at(user_location())}: its dtype would depend on the "
            f"data; cast both to one dtype (.astype)")
    if not branches and b.weak and not a.weak:
        # an iteration makes it a Python number: NumPy's variable is that after the loop
        return TensorType(shape, b.dtype, True)
    # A weak (Python scalar) start value takes the type the loop computes (NEP 50).
    dtype = np.result_type(example_value(a) if a.weak else a.dtype,
                           example_value(b) if b.weak else b.dtype)
    return TensorType(shape, dtype, a.weak and b.weak)


def run_time_index(have: tuple, want: tuple) -> tuple:
    """The whole-array index that gives an array of shape ``have`` the
    run-time lengths ``want`` marks (None): the same values."""
    return tuple((ops.RANGE, None, None, 1) if w is None else (0, h, 1)
                 for h, w in zip(have, want, strict=True))


def computed_at(v: Value) -> str:
    loc = v.producer.loc if v.producer is not None else None
    return f" (computed at {loc})" if loc is not None else ""


def emit_node(op: ops.Op, inputs: Sequence[Value], regions: Sequence[Region],
          attrs: dict | None = None) -> list[Value]:
    node = current().builder.emit(op, inputs, attrs or {}, tuple(regions), loc=user_location())
    return list(node.outputs)


def update_buffers(buffers: Sequence[Buffer], values: Sequence[Value]) -> None:
    ctx = current()
    for buf, value in zip(buffers, values, strict=True):
        ctx.log_write(buf)
        buf.value, buf.version = value, buf.version + 1


def output_leaves(values: list[Value], static: list[object], like: Sequence[object] = ()) -> list:
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
        bodies = [trace_body(_failing(error, fn, unchanged_values), operands, bind_params=False)
                  for error, fn in ((then_error, then_fn), (else_error, else_fn))]
        emit_node(ops.cond, [pred], [with_results(b.region, []) for b in bodies])
        raise then_error  # what follows never runs: where it is traced, the cond raises
    if then_error is not None:
        then_b = trace_body(_failing(then_error, then_fn, else_fn), operands,
                             bind_params=False)
    if else_error is not None:
        else_b = trace_body(_failing(else_error, else_fn, then_fn), operands,
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
        traced = traced_by_position(body)
        results = [traced[i] for i, kind in enumerate(plan) if kind is None]
        results += [body.written.get(k, (b, b.value))[1] for k, b in buffers.items()]
        results += [flags[path] for flags in kinds.values()]
        regions.append(with_results(body.region, results))
    labels = [names[i] if i < len(names) else f"#{i}" for i, k in enumerate(plan) if k is None]
    labels += [f"array written in a branch #{i}" for i in range(len(buffers))]
    labels += [f"kind of #{i}" for i in kinds]
    types = [joined_type(a, b, f"variable {label}", branches=True) for a, b, label in
             zip(regions[0].results, regions[1].results, labels, strict=True)]
    regions = [cast_results(r, types) for r in regions]
    outs = emit_node(ops.cond, [pred], regions)
    outs, flags = outs[:len(outs) - len(kinds)], outs[len(outs) - len(kinds):]
    n = len(outs) - len(buffers)
    update_buffers(list(buffers.values()), outs[n:])
    result = output_leaves(outs[:n], plan)
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
                and same_view(then_b.outer_array[i], else_b.outer_array[i]):
            # the same view of one outer array on both paths: that view, which
            # later writes into the array reach (as NumPy's do)
            result[i] = Tracer(*then_b.outer_array[i])
        elif isinstance(result[i], Tracer):
            name = names[i] if i < len(names) else f"#{i}"
            for path, body in enumerate((then_b, else_b)):
                _register_paths(result[i], body, i, pred, path, name)
    return result


def _register_paths(merged: Tracer, body: Body, i: int, pred: Value, path: int,
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
    regions = [cast_results(Region((), (), (v,)), [joined]) for v in (then, otherwise)]
    return emit_node(ops.cond, [pred], regions)[0]


def same_view(a: tuple[Buffer, tuple], b: tuple[Buffer, tuple] | None) -> bool:
    return b is not None and a[0] is b[0] and a[1] == b[1]


def _path_kinds(a: Body, b: Body, plan: list) -> dict[int, tuple[Value, Value]]:
    """Per 0-d output that is a NumPy scalar on one path and a 0-d array on the
    other (or a run-time kind on either): each branch's bool saying which."""
    kinds = {}
    for i, (x, y) in enumerate(zip(a.kind, b.kind, strict=True)):
        if plan[i] is None and x is not y and traced_by_position(a)[i].type.ndim == 0:
            kinds[i] = (as_flag(x), as_flag(y))
    return kinds


# Errors NumPy raises from the values and shapes it meets (not jitaic's own
# limits): in a branch that may never run, they are that branch's run-time error.
NUMPY_ERRORS = (TypeError, ValueError, IndexError, OverflowError)


def numpys_error(exc: Exception) -> bool:
    """An error NumPy raises from the values and shapes it meets (jitaic's
    shape checks included), not one of jitaic's refusals."""
    return isinstance(exc, NUMPY_ERRORS) and not isinstance(exc, PathShapeError) and (
        not isinstance(exc, JitaicError) or isinstance(exc, ShapeError))


def _trace_branch(fn: Callable, operands: Sequence[object]) -> tuple:
    try:
        return trace_body(fn, operands, bind_params=False), None
    except NUMPY_ERRORS as exc:
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


def _fill_undefined(a: Body, b: Body, i: int, undefined: object) -> None:
    """Output ``i`` traced on one path and undefined on the other: zeros there."""
    for this, other in ((a, b), (b, a)):
        if _is_undefined(this.out_static[i], undefined) and other.out_static[i] is None:
            t = traced_by_position(other)[i].type
            zeros = make_node(ops.full, [], {"shape": t.shape, "dtype": t.dtype, "fill": 0},
                              loc=user_location())
            position = sum(s is None for s in this.out_static[:i])
            results = list(this.region.results)
            results.insert(position, zeros.output)
            this.region = Region(this.region.params, (*this.region.nodes, zeros),
                                 tuple(results))
            this.out_static[i] = None


def traced_by_position(body: Body) -> dict[int, Value]:
    it = iter(body.region.results)
    return {i: next(it) for i, s in enumerate(body.out_static) if s is None}


def _is_undefined(x: object, undefined: object) -> bool:
    """``x`` is (a per-variable instance of) the ``undefined`` sentinel."""
    return undefined is not None and type(x) is type(undefined)


def _join_outputs(a: Body, b: Body, names: Sequence[str], undefined: object) -> list:
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


def as_flag(kind: bool | Value) -> Value:
    return kind if isinstance(kind, Value) else to_value(np.bool_(kind))


def unchanged_values(*carried: object) -> list:
    return list(carried)
