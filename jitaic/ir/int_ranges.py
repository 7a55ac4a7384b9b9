"""Bounds of integer scalars known from the graph: constants, the indices of
for loops with known bounds, and sums, differences and multiples of those.

Lowering reads them to leave out what a run-time index needs only when its
value is unknown: the bounds check (``for i in range(1, n): x[i - 1]`` is in
range of an axis of n) and the normalisation of a negative index. A gradient
replays every read of its forward loop, so its loops hold many such indices.
"""

from __future__ import annotations

import numpy as np

from jitaic.ir import ops
from jitaic.ir.graph import Graph, Region, Value

Bounds = tuple[int, int]  # the smallest and largest value, inclusive


class IntRanges:
    """Bounds of the integer scalars of one graph, computed on demand."""

    def __init__(self, graph: Graph) -> None:
        self._loops: dict[int, tuple[Value, Value, Value]] = {}  # index -> start, stop, step
        self._known: dict[int, Bounds | None] = {}
        self._collect(graph)

    def _collect(self, region: Region) -> None:
        for node in region.nodes:
            if node.op is ops.for_loop:
                start, stop, step = node.inputs[:3]
                self._loops[id(node.regions[0].params[0])] = (start, stop, step)
            for body in node.regions:
                self._collect(body)

    def of(self, v: Value) -> Bounds | None:
        """The bounds of ``v``'s value whenever it is computed, or None."""
        if v.type.ndim or v.dtype.kind not in "iu":
            return None
        if id(v) not in self._known:
            self._known[id(v)] = None  # (a cycle would read None: no bounds)
            found = self._derive(v)
            info = np.iinfo(v.dtype)  # outside its dtype's range the value wrapped around
            self._known[id(v)] = found if found and info.min <= found[0] <= found[1] <= info.max \
                else None
        return self._known[id(v)]

    def _derive(self, v: Value) -> Bounds | None:
        if id(v) in self._loops:
            return self._loop_index(*self._loops[id(v)])
        node = v.producer
        if node is None:
            return None
        if node.op is ops.constant:
            value = int(node.attrs["value"])
            return value, value
        if node.op is ops.astype:  # (of: the bounds must fit the new dtype)
            return self.of(node.inputs[0])
        operands = [self.of(x) for x in node.inputs]
        if None in operands or not operands:
            return None
        if node.op is ops.negative:
            return -operands[0][1], -operands[0][0]
        if node.op is ops.add:
            return operands[0][0] + operands[1][0], operands[0][1] + operands[1][1]
        if node.op is ops.subtract:
            return operands[0][0] - operands[1][1], operands[0][1] - operands[1][0]
        if node.op is ops.multiply:
            corners = [a * b for a in operands[0] for b in operands[1]]
            return min(corners), max(corners)
        return None

    def _loop_index(self, start: Value, stop: Value, step: Value) -> Bounds | None:
        """``range(start, stop, step)``'s values, for a known constant step.
        A loop that runs no iteration binds no value: any bounds hold."""
        first, last, stride = self.of(start), self.of(stop), self.of(step)
        if first is None or last is None or stride is None or stride[0] != stride[1]:
            return None
        if stride[0] > 0:
            return first[0], last[1] - 1
        if stride[0] < 0:
            return last[0] + 1, first[1]
        return None

    def within(self, v: Value, extent: object) -> bool:
        """Whether ``v`` is a valid index (negative ones count from the end)
        of a static axis of ``extent`` elements."""
        bounds = self.of(v)
        return isinstance(extent, int) and bounds is not None \
            and -extent <= bounds[0] and bounds[1] < extent

    def non_negative_within(self, v: Value, extent: object) -> bool:
        """Whether ``v`` indexes an axis of ``extent`` without counting from the end."""
        bounds = self.of(v)
        return self.within(v, extent) and bounds[0] >= 0

