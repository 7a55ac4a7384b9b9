"""The pass pipeline: named passes, in order, run to a fixed point.

Each pass is ``fn(graph) -> (graph, changed)``. The driver verifies the IR
after every pass when checks are on (``JITAIC_CHECKS=1``), times each pass,
dumps the IR before/after named passes (``JITAIC_DUMP_IR``, see below) and
tags any exception with the pass that raised it.

``JITAIC_DUMP_IR``: a comma-separated list of ``before:<pass>``,
``after:<pass>`` or ``all``; dumps go to the ``jitaic`` logger.
"""

from __future__ import annotations

import logging
import os
import time
from collections import defaultdict
from collections.abc import Callable

from jitaic import config
from jitaic.ir.graph import Graph
from jitaic.ir.printer import format_graph
from jitaic.ir.verifier import verify
from jitaic.passes.cleanup import eliminate_common_subexpressions, eliminate_dead_code
from jitaic.passes.fold import fold_constants
from jitaic.passes.simplify import reassociate, simplify

log = logging.getLogger("jitaic")
Pass = Callable[[Graph], tuple[Graph, bool]]

PIPELINE: list[tuple[str, Pass]] = [
    ("fold_constants", fold_constants),
    ("simplify", simplify),
    ("cse", eliminate_common_subexpressions),
    ("dce", eliminate_dead_code),
    ("reassociate", reassociate),  # reads use counts: after CSE and DCE
]
MAX_ROUNDS = 8
PASS_SECONDS: dict[str, float] = defaultdict(float)  # cumulative, per pass name


def _dump_requested(when: str, name: str) -> bool:
    spec = os.environ.get("JITAIC_DUMP_IR", "")
    wanted = {s.strip() for s in spec.split(",") if s.strip()}
    return "all" in wanted or f"{when}:{name}" in wanted


def run_pass(name: str, fn: Pass, graph: Graph) -> tuple[Graph, bool]:
    if _dump_requested("before", name):
        log.warning("IR before %s:\n%s", name, format_graph(graph))
    start = time.perf_counter()
    try:
        graph, changed = fn(graph)
        if config.get("checks"):
            verify(graph)
    except Exception as exc:
        if hasattr(exc, "add_note"):
            exc.add_note(f"(raised in jitaic pass {name!r})")
        raise
    finally:
        PASS_SECONDS[name] += time.perf_counter() - start
    if _dump_requested("after", name):
        log.warning("IR after %s:\n%s", name, format_graph(graph))
    return graph, changed


def optimize(graph: Graph, pipeline: list[tuple[str, Pass]] | None = None) -> Graph:
    """Run the pipeline until no pass changes the graph (at most MAX_ROUNDS)."""
    for _ in range(MAX_ROUNDS):
        any_change = False
        for name, fn in pipeline or PIPELINE:
            graph, changed = run_pass(name, fn, graph)
            any_change |= changed
        if not any_change:
            break
    return graph
