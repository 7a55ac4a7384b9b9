"""Structural and type checks of a graph; run after tracing and passes under checks."""

from __future__ import annotations

from jitaic.ir.graph import Graph, Region


class VerificationError(AssertionError):
    pass


def _verify_region(region: Region, defined: set[int]) -> None:
    defined = defined | {id(p) for p in region.params}
    for node in region.nodes:
        for v in node.inputs:
            if id(v) not in defined:
                raise VerificationError(f"{node.op.name}: input {v!r} used before definition")
        for inner in node.regions:
            _verify_region(inner, defined)
        expected = node.op.infer([v.type for v in node.inputs], node.attrs, node.regions)
        actual = [v.type for v in node.outputs]
        if list(expected) != actual:
            raise VerificationError(f"{node.op.name}: output types {actual} but the op's "
                                    f"rule says {list(expected)}")
        for i, v in enumerate(node.outputs):
            if v.producer is not node or v.index != i:
                raise VerificationError(f"{node.op.name}: output {i} has a wrong producer")
            defined.add(id(v))
    for v in region.results:
        if id(v) not in defined:
            raise VerificationError(f"region result {v!r} is not defined")


def verify(graph: Graph) -> None:
    """Raise VerificationError when an invariant of ir/graph.py does not hold."""
    _verify_region(graph, set())
    for index, value in graph.updates.items():
        if not 0 <= index < len(graph.params):
            raise VerificationError(f"update of parameter {index}, which does not exist")
        if value.type.shape != graph.params[index].type.shape:
            raise VerificationError(f"update of parameter {index} changes its shape")
