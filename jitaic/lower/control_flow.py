"""Lowering of cond, while_loop and for_loop to native control flow.

Region bodies are emitted inline, inside one numba function, so a loop runs
no Python per iteration. Region parameters are bound to the names of the
values they stand for; loop-carried values are updated with one tuple
assignment at the end of each iteration.
"""

from __future__ import annotations

from jitaic.ir import ops
from jitaic.ir.graph import Node, Region
from jitaic.lower.codegen import Emitter, copy_of
from jitaic.lower.kernels import lowering


def _bind(em: Emitter, region: Region, names: list[str]) -> None:
    for p, name in zip(region.params, names, strict=True):
        em.alias(p, name, "A")


def _assign(em: Emitter, targets: list[str], region: Region) -> None:
    if targets:  # one tuple assignment: every right-hand side is read first
        em.line(f"{', '.join(targets)} = {', '.join(em(v) for v in region.results)}")


@lowering(ops.cond)
def _cond(em: Emitter, node: Node) -> None:
    pred, *operands = node.inputs
    then_r, else_r = node.regions
    targets = [em.define(v, layout="A") for v in node.outputs]
    for region, branch in ((then_r, lambda: em.if_(em(pred))), (else_r, em.else_)):
        with branch():
            _bind(em, region, [em(v) for v in operands])
            em.regions.emit(region)
            _assign(em, targets, region)


def _carried(em: Emitter, node: Node, init, params, in_place: set[int]) -> list[str]:
    """The loop-carried variables; those the body stores into in place start
    from a copy of their initial value (the loop owns its buffers), unless
    the loop is the last reader of that value's buffer (in_place.decide)."""
    targets = [em.define(v, layout="A") for v in node.outputs]
    for target, v, p in zip(targets, init, params, strict=True):
        copy = id(p) in in_place and not em.can_overwrite(v, node)
        em.line(f"{target} = {copy_of(em(v)) if copy else em(v)}")
    return targets


# A while loop asks Python whether Ctrl-C arrived once every POLL_TURNS
# iterations (a C call, ~20 ns): a runaway loop stops within a second. A loop
# of a few integer operations a turn (Collatz steps) loses ~2%, the
# bench_control loops nothing measurable (benchmarks/bench_safety.py; 0 turns
# polling off, for that comparison only).
POLL_TURNS = 1024


def _poll(em: Emitter, turns: str) -> None:
    em.line(f"{turns} -= 1")  # a count down: one decrement and a branch per turn
    with em.if_(f"{turns} == 0"):
        em.line(f"{turns} = {POLL_TURNS}")
        with em.if_("rt.interrupted()"):
            em.raise_("rt.Interrupted('a jitted while loop was interrupted')")


@lowering(ops.while_loop)
def _while(em: Emitter, node: Node) -> None:
    test, body = node.regions
    in_place = em.regions.plan(body, body.params)
    targets = _carried(em, node, node.inputs, body.params, in_place)
    turns = em.fresh("turns")
    if POLL_TURNS:
        em.line(f"{turns} = {POLL_TURNS}")
    with em.while_("True"):
        _bind(em, test, targets)
        em.regions.emit(test)
        with em.if_(f"not {em(test.results[0])}"):
            em.line("break")
        if POLL_TURNS:
            _poll(em, turns)
        _bind(em, body, targets)
        em.regions.emit(body)
        _assign(em, targets, body)


@lowering(ops.for_loop)
def _for(em: Emitter, node: Node) -> None:
    start, stop, step, *init = node.inputs
    (body,) = node.regions
    in_place = em.regions.plan(body, body.params[1:])
    targets = _carried(em, node, init, body.params[1:], in_place)
    index = em.fresh("it")
    with em.for_(index, em(stop), em(start), em(step)):
        _bind(em, body, [index, *targets])
        em.regions.emit(body)
        _assign(em, targets, body)
