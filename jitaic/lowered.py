"""What one specialisation compiled to, for people: ``f.lower(*args)``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # jitaic.lower imports numba: loaded on the first compile
    from jitaic.lower.fusion import Plan
    from jitaic.picture import Picture
    from jitaic.specialization import Specialization

# The views below import what they show on first use: ``import jitaic``
# stays quick.


class Lowered:
    """What one specialisation compiled to: the optimised graph (``ir``, as text
    ``as_text()``, as a picture ``graph()``) and the generated ``source()``."""

    def __init__(self, spec: Specialization) -> None:
        self._spec = spec
        self.ir = spec.graph
        self.frontend = spec.frontend  # "trace" or "ast"

    def as_text(self) -> str:
        return self._spec.ir

    def graph(self) -> Picture:
        """A Graphviz picture of the optimised graph: fused kernels as clusters,
        loops and branches as boxes, BLAS/LAPACK calls marked, source lines as
        labels (``.source`` is the DOT text; ``.svg()``, ``.save(path)``)."""
        from jitaic.picture import draw

        return draw(self._spec.graph)

    def source(self) -> str:
        return self._spec.source

    def rewritten_source(self) -> str:
        """The function as the AST frontend rewrote it (mode="ast"/"auto" fallback)."""
        from jitaic.ast_frontend.transform import convert

        return convert(self._spec.fn).source if self._spec.frontend == "ast" else ""

    def fusion_report(self) -> str:
        """One line per kernel: the nodes fused into it and why its boundary stayed."""
        return self._spec.compiled.report if self._spec.compiled else ""

    def fusion_plan(self) -> Plan | None:
        """The fused kernels as objects (``.kernels()``, ``.row_loops()``,
        ``.alone()``): what ``fusion_report`` describes."""
        return self._spec.compiled.plan if self._spec.compiled else None

    def loops(self) -> str:
        """The generated function as loop IR, before it became ``source()``:
        loops with their kind (parallel, row loop, thread blocks), stores,
        index checks and scratch buffers."""
        from jitaic.lower.loop_ir import format_loops

        return format_loops(self._spec.compiled.loops) if self._spec.compiled else ""
