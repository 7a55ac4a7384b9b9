"""Constants, filled arrays, gradient tapes, run-time checks and extents.
"""

from __future__ import annotations

import builtins

import numpy as np

from jitaic.ir import ops
from jitaic.ir.graph import Node
from jitaic.lower import runtime
from jitaic.lower.codegen import Emitter, full, literal
from jitaic.lower.kernels.loops import extent, lowering


@lowering(ops.constant)
def _constant(em: Emitter, node: Node) -> None:
    value = node.attrs["value"]
    if value.ndim == 0:
        em.scalar_constant(node.output, literal(value.item(), value.dtype))
    else:
        em.alias(node.output, em.constant_arg(value))


@lowering(ops.full)
def _full(em: Emitter, node: Node) -> None:
    out = node.output
    fill = literal(node.attrs["fill"], out.dtype)
    if out.type.ndim == 0:
        em.line(f"{em.define(out)} = {fill}")
    else:
        em.line(f"{em.define(out)} = {full(out.shape, fill, out.dtype)}")


@lowering(ops.dyn_full)
def _dyn_full(em: Emitter, node: Node) -> None:
    out = node.output
    fill = literal(node.attrs["fill"], out.dtype)
    given = iter(node.inputs)
    lengths = [em(next(given)) if d is None else str(d) for d in node.attrs["shape"]]
    em.line(f"{em.define(out)} = {full(tuple(lengths), fill, out.dtype)}")


TAPE_START_ROWS = 16  # enough for short loops without growing


def _tape_pool(em: Emitter, node: Node) -> str:
    """The argument holding a tape slot's buffer between calls: a one-element
    numba typed list, which compiled code can rebind when the tape grows."""
    slot = node.attrs["slot"]
    if slot not in em.tape_pools:
        out = node.output
        first = np.empty((TAPE_START_ROWS, *out.shape[1:]), out.dtype)
        em.tape_pools[slot] = em.constant_arg(runtime.new_tape_pool(first))
    return em.tape_pools[slot]


@lowering(ops.tape_new)
def _tape_new(em: Emitter, node: Node) -> None:
    em.line(f"{em.define(node.output)} = rt.tape_start({_tape_pool(em, node)})")


@lowering(ops.tape_push)
def _tape_push(em: Emitter, node: Node) -> None:
    tape, row, count = node.inputs
    # The push writes into the tape's buffer: the old tape value is dead after
    # this node (tapes are threaded linearly through the recording loop).
    em.line(f"{em.define(node.output)} = rt.tape_push({_tape_pool(em, node)}, {em(tape)}, "
            f"{em(row)}, {em(count)})")


@lowering(ops.check)
def _check(em: Emitter, node: Node) -> None:
    (ok,) = node.inputs
    error = node.attrs["error"]
    if not hasattr(builtins, error):  # jitaic's own, from the runtime module
        error = f"rt.{error}"
    with em.if_(f"not {em(ok)}"):
        em.raise_(f"{error}({node.attrs['message']!r})")
    em.line(f"{em.define(node.output)} = {em(ok)}")


@lowering(ops.dim_size)
def _dim_size(em: Emitter, node: Node) -> None:
    (x,) = node.inputs
    size = extent(em, x, node.attrs["axis"])
    em.line(f"{em.define(node.output)} = np.int64({size})")
