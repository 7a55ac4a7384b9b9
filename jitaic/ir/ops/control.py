"""Constants, run-time checks, structured control flow and tapes."""

from __future__ import annotations

import numpy as np

from jitaic.errors import ShapeError, UnsupportedError
from jitaic.ir.ops.core import (
    ALLOCATES,
    CONSTRUCTOR,
    CONTROL_FLOW,
    EFFECTFUL,
    HAS_REGION,
    check_dtype,
    define,
    memory_root,
)
from jitaic.ir.types import TensorType

# A run-time check: raises ``error`` (a builtin exception's name) with
# ``message`` where ``ok`` (a bool scalar) is false, as NumPy raises on some
# values (integers to negative powers, non-finite histogram ranges), or jitaic
# refuses what only the run shows it cannot compile as NumPy runs it (a loop
# that runs 0 times leaving a variable of another dtype). Its output is ``ok``
# itself; being effectful, it runs even when nothing reads that.
CHECK_ERRORS = {"ValueError": ValueError, "IndexError": IndexError,
                "OverflowError": OverflowError, "TypeError": TypeError,
                "AssertionError": AssertionError, "UnsupportedError": UnsupportedError}


def _check_infer(in_types, attrs, regions):
    (ok,) = in_types
    if ok.ndim or ok.dtype != np.bool_ or attrs["error"] not in CHECK_ERRORS:
        raise ValueError(f"a check takes a bool scalar and one of {sorted(CHECK_ERRORS)}")
    return [ok]


def _check_reference(ok, error, message):
    if not ok:
        raise CHECK_ERRORS[error](message)
    return ok


check = define("check", _check_infer, _check_reference, (EFFECTFUL,), complex=True)


# ---------------------------------------------------------------- constants


def _constant_infer(in_types, attrs, regions):
    value = attrs["value"]
    return [TensorType(value.shape, value.dtype, attrs.get("weak", False))]


constant = define("constant", _constant_infer,
                  lambda value, weak=False: value, (CONSTRUCTOR,),
                  complex=True)


def _full_infer(in_types, attrs, regions):
    return [TensorType(attrs["shape"], check_dtype(attrs["dtype"], "full"))]


full = define("full", _full_infer,
              lambda shape, dtype, fill: np.full(shape, fill, dtype), (CONSTRUCTOR,),
              complex=True)


def _dyn_full_infer(in_types, attrs, regions):
    shape = attrs["shape"]
    if shape.count(None) != len(in_types) or any(
            t.ndim or t.dtype != np.int64 for t in in_types):
        raise ValueError(f"dyn_full of shape {shape} takes one int64 scalar per run-time "
                         f"length, not {list(in_types)}")
    return [TensorType(shape, check_dtype(attrs["dtype"], "full"))]


def _dyn_full_evaluate(*lengths, shape, dtype, fill):
    given = iter(lengths)
    return np.full(tuple(int(next(given)) if d is None else d for d in shape), fill, dtype)


# A filled array some of whose lengths (the None entries of ``shape``) are
# run-time values, one input each (np.bincount's counts, np.zeros((n, 3))): a
# fresh buffer that later ops write in place.
dyn_full = define("dyn_full", _dyn_full_infer, _dyn_full_evaluate, (ALLOCATES,), complex=True)

# ---------------------------------------------------------------- control flow
# Structured control flow holds its bodies as Regions. The frontends that
# produce these come with the AST frontend; the data structure, printer,
# verifier and interpreter support them now.


def _region_result_types(region) -> list[TensorType]:
    return [v.type for v in region.results]


def _cond_infer(in_types, attrs, regions):
    then_r, else_r = regions
    then_t, else_t = _region_result_types(then_r), _region_result_types(else_r)
    if [(t.shape, t.dtype) for t in then_t] != [(t.shape, t.dtype) for t in else_t]:
        raise ShapeError(f"cond branches disagree: {then_t} vs {else_t}")
    return then_t


def _cond_reference(pred, *operands, regions):
    then_fn, else_fn = regions
    return (then_fn if bool(pred) else else_fn)(*operands)


cond = define("cond", _cond_infer, _cond_reference, (HAS_REGION, CONTROL_FLOW), complex=True)


def _loop_infer(in_types, attrs, regions):
    body = regions[-1]
    return _region_result_types(body)


def _while_reference(*carried, regions):
    cond_fn, body_fn = regions
    while bool(cond_fn(*carried)[0]):
        carried = body_fn(*carried)
    return carried


while_loop = define("while_loop", _loop_infer, _while_reference,
                    (HAS_REGION, CONTROL_FLOW),
                    complex=True)


def _for_reference(start, stop, step, *carried, regions):
    (body_fn,) = regions
    for i in range(int(start), int(stop), int(step)):
        carried = body_fn(np.asarray(i), *carried)
    return carried


for_loop = define("for_loop", _loop_infer, _for_reference, (HAS_REGION, CONTROL_FLOW), complex=True)


def _runs(loop) -> bool:
    """Whether a for loop runs at least once, by its constant bounds."""
    if loop.op is not for_loop or any(v.producer is None or v.producer.op is not constant
                                      for v in loop.inputs[:3]):
        return False
    start, stop, step = (int(v.producer.attrs["value"]) for v in loop.inputs[:3])
    return step != 0 and len(range(start, stop, step)) > 0


def memory_roots(value, owned=lambda output: False) -> list:
    """The values whose buffers ``value`` may be at run time: its view base
    (``memory_root``), and where that is an output of an if or loop, the
    buffers of what a branch yields there, or what the loop comes in with
    (it may run no iteration) or an iteration yields (compiled code hands on
    arrays, views included, without copying them). ``owned(output)``: the
    loop's output is a buffer of its own (lowering copies the initial value
    of a carried array the body stores into)."""
    found, todo, seen = [], [value], set()
    while todo:
        root = memory_root(todo.pop())
        if id(root) in seen:
            continue
        seen.add(id(root))
        found.append(root)
        node = root.producer
        if node is None or node.op not in (cond, for_loop, while_loop) or owned(root):
            continue
        i, body = root.index, node.regions[-1]
        inits = node.inputs[3:] if node.op is for_loop else node.inputs
        params = body.params[1:] if node.op is for_loop else body.params
        for region in node.regions:
            if len(region.results) != len(node.outputs):
                continue  # (a while loop's test)
            yielded = region.results[i]
            base = memory_root(yielded)
            # an iteration that hands on what it came in with (maybe swapped)
            todo.append(inits[params.index(base)] if node.op is not cond and any(
                base is p for p in params) else yielded)
        if node.op is not cond and not _runs(node):
            todo.append(inits[i])
    return found



# ---------------------------------------------------------------- tapes
# A tape is a stack whose length is known only at run time (leading dimension
# None): the gradient of a while loop pushes each iteration's carried values
# in the forward loop and reads them back, in reverse, in the backward loop.
# Pushing writes into the tape's buffer (growing it when full), so every tape
# is a fresh allocation and is threaded linearly through the loop.


def _tape_new_infer(in_types, attrs, regions):
    return [TensorType((None, *attrs["shape"]), check_dtype(attrs["dtype"], "tape"))]


# "slot" names the tape: compiled code keeps each slot's buffer between calls
# (a tape runs within one call, so the next call starts on the grown buffer
# instead of faulting in fresh pages).
tape_new = define("tape_new", _tape_new_infer,
                  lambda shape, dtype, slot: np.empty((0, *shape), dtype), (ALLOCATES,),
                  complex=True)


def _tape_push_infer(in_types, attrs, regions):
    tape, row, count = in_types
    if tape.shape[1:] != row.shape or tape.dtype != row.dtype or count.ndim or \
            count.dtype != np.int64:
        raise ValueError(f"cannot push {row} at {count} onto tape {tape}")
    return [tape]


def _tape_push_reference(tape, row, count, slot):
    count = int(count)
    if count >= len(tape):  # grow geometrically, as the compiled version does
        tape = np.concatenate([tape, np.empty((len(tape) + 16, *tape.shape[1:]),
                                              tape.dtype)])
    tape[count] = row
    return tape


tape_push = define("tape_push", _tape_push_infer, _tape_push_reference, complex=True)
