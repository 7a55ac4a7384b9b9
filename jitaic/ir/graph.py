"""Value, Node, Region and Graph: the typed SSA graph every pass works on.

Invariants (checked by ``verifier.verify``):
- a Value is produced once, by a Node or as a Region parameter;
- every Node's inputs are defined before it, in its Region or an enclosing one;
- a Node's output types are what its op's ``infer`` rule says.
Nodes are not mutated after construction; passes build new graphs.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from jitaic.errors import SourceLoc
from jitaic.ir.types import TensorType


class Value:
    """One SSA value. ``name`` is a hint for printers and code generators."""

    __slots__ = ("type", "producer", "index", "name")

    def __init__(self, type: TensorType, producer: Node | None = None, index: int = 0,
                 name: str | None = None) -> None:
        self.type = type
        self.producer = producer
        self.index = index
        self.name = name

    @property
    def shape(self) -> tuple[int, ...]:
        return self.type.shape

    @property
    def dtype(self):
        return self.type.dtype

    def __repr__(self) -> str:
        return f"Value({self.name or id(self)}: {self.type})"


@dataclass(frozen=True, eq=False)
class Region:
    """A block of nodes with parameters and results (a body of cond/loops)."""

    params: tuple[Value, ...]
    nodes: tuple[Node, ...]
    results: tuple[Value, ...]

    def walk(self) -> Iterator[Node]:
        """Every node, nested regions included, in program order."""
        for node in self.nodes:
            yield node
            for region in node.regions:
                yield from region.walk()


@dataclass(frozen=True, eq=False)
class Node:
    op: object  # jitaic.ir.ops.Op (typed loosely to avoid an import cycle)
    inputs: tuple[Value, ...]
    attrs: Mapping[str, object]
    outputs: tuple[Value, ...]
    regions: tuple[Region, ...] = ()
    loc: SourceLoc | None = None

    @property
    def output(self) -> Value:
        assert len(self.outputs) == 1, f"{self.op.name} has {len(self.outputs)} outputs"
        return self.outputs[0]


@dataclass(frozen=True, eq=False)
class Graph(Region):
    """A whole function: a Region plus the name and the argument updates.

    ``updates`` maps a parameter index to the Value the caller's array holds
    when the function returns (in-place mutation of arguments, NumPy style).
    """

    name: str = "f"
    updates: Mapping[int, Value] = field(default_factory=dict)

    def __str__(self) -> str:
        from jitaic.ir.printer import format_graph

        return format_graph(self)


def make_node(op, inputs: Sequence[Value], attrs: Mapping[str, object] | None = None,
              regions: Sequence[Region] = (), loc: SourceLoc | None = None) -> Node:
    """Infer output types with the op's rule and build the node."""
    attrs = MappingProxyType(dict(attrs or {}))
    inputs = tuple(inputs)
    in_types = [v.type for v in inputs]
    out_types = op.infer(in_types, attrs, tuple(regions))
    op.check_complex([*in_types, *out_types])
    outputs = tuple(Value(t) for t in out_types)
    node = Node(op, inputs, attrs, outputs, tuple(regions), loc)
    for i, v in enumerate(outputs):
        v.producer, v.index = node, i
    return node


class GraphTooLarge(Exception):
    """A Builder went past its node budget (auto mode then tries the AST frontend)."""


class Builder:
    """Appends nodes to the innermost open region (a stack, for nested bodies)."""

    def __init__(self, max_nodes: int | None = None) -> None:
        self._blocks: list[list[Node]] = [[]]
        self._serials: list[int] = [0]  # a unique number per open block
        self._next_serial = 1
        self.max_nodes, self._emitted = max_nodes, 0

    def emit(self, op, inputs: Sequence[Value], attrs=None, regions=(), loc=None) -> Node:
        node = make_node(op, inputs, attrs, regions, loc)
        self._blocks[-1].append(node)
        self._emitted += 1
        if self.max_nodes is not None and self._emitted > self.max_nodes:
            raise GraphTooLarge(f"more than {self.max_nodes} nodes")
        return node

    def open_block(self) -> None:
        self._blocks.append([])
        self._serials.append(self._next_serial)
        self._next_serial += 1

    @property
    def block_serial(self) -> int:
        """Identifies the innermost open block (never reused, unlike id())."""
        return self._serials[-1]

    def is_open(self, serial: int) -> bool:
        """Whether the block numbered ``serial`` is open: the innermost block or
        one enclosing it, whose values the innermost block may read."""
        return serial in self._serials

    def close_block(self) -> tuple[Node, ...]:
        self._serials.pop()
        return tuple(self._blocks.pop())

    @property
    def nodes(self) -> tuple[Node, ...]:
        assert len(self._blocks) == 1, "unclosed region"
        return tuple(self._blocks[0])
