"""The pass pipeline: named passes, in order, run to a fixed point.

Each pass is ``fn(graph) -> (graph, changed)``. The driver verifies the IR
after every pass when checks are on (``JITAIC_CHECKS=1``), times each pass
and counts the rewrite rules that fire (a ``PassLog`` per run), logs the IR
before/after the passes ``JITAIC_DUMP_IR`` names (``before:simplify``,
``after:cse``, ``all``; DEBUG records of the ``jitaic`` logger) and tags any
exception with the pass that raised it.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from jitaic import config
from jitaic.ir.graph import Graph
from jitaic.ir.printer import format_graph
from jitaic.ir.verifier import verify
from jitaic.passes import rewrite
from jitaic.passes.cleanup import eliminate_common_subexpressions, eliminate_dead_code
from jitaic.passes.fold import fold_constants
from jitaic.passes.simplify import reassociate, simplify

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


@dataclass
class PassLog:
    """What one ``optimize`` run did: seconds per pass, and how often each
    rewrite rule fired (counted while ``JITAIC_DEBUG`` is on)."""

    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    rule_hits: Counter[str] = field(default_factory=Counter)

    def summary(self) -> str:
        times = ", ".join(f"{name} {1e3 * s:.1f} ms" for name, s in self.seconds.items())
        hits = ", ".join(f"{name} x{n}" for name, n in self.rule_hits.most_common())
        return f"{times}; rules fired: {hits or 'none'}"


def run_pass(name: str, fn: Pass, graph: Graph, log: PassLog | None = None
             ) -> tuple[Graph, bool]:
    if config.dump_requested("before", name):
        config.debug_log().debug("IR before %s:\n%s", name, format_graph(graph))
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
        seconds = time.perf_counter() - start
        PASS_SECONDS[name] += seconds
        if log is not None:
            log.seconds[name] += seconds
    if config.dump_requested("after", name):
        config.debug_log().debug("IR after %s:\n%s", name, format_graph(graph))
    return graph, changed


def optimize(graph: Graph, pipeline: list[tuple[str, Pass]] | None = None,
             log: PassLog | None = None) -> Graph:
    """Run the pipeline until no pass changes the graph (at most MAX_ROUNDS);
    ``log`` collects what the passes did."""
    hits_before = Counter(rewrite.RULE_HITS) if log is not None else None
    for _ in range(MAX_ROUNDS):
        any_change = False
        for name, fn in pipeline or PIPELINE:
            graph, changed = run_pass(name, fn, graph, log)
            any_change |= changed
        if not any_change:
            break
    if log is not None:
        log.rule_hits.update(rewrite.RULE_HITS - hits_before)
    return graph
