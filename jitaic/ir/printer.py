"""The typed SSA text form of a graph (STYLE.md 1.4).

Values are renumbered at print time so output is deterministic; attributes are
sorted; small constants print inline; regions are indented and end in yield.
"""

from __future__ import annotations

import numpy as np

from jitaic.ir.graph import Graph, Node, Region, Value

_LOC_COLUMN = 56


class _Namer:
    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self._count = 0

    def define(self, v: Value, hint: str | None = None) -> str:
        if hint:
            name = f"%{hint}"
        else:
            name, self._count = f"%{self._count}", self._count + 1
        while name in self.names.values():
            name += "_"
        self.names[id(v)] = name
        return name

    def __call__(self, v: Value) -> str:
        return self.names.get(id(v), "%<undefined>")


def format_attr(value: object) -> str:
    if isinstance(value, np.ndarray):
        if value.size <= 4:
            return np.array2string(value, separator=",").replace("\n", "")
        return f"<{value.dtype}{list(value.shape)}>"
    if isinstance(value, np.dtype):
        return value.name
    return repr(value)


def _inline_constant(node: Node) -> str | None:
    value = node.attrs["value"]
    if value.ndim == 0:
        return repr(value.item())
    return None


def _format_node(node: Node, names: _Namer, indent: str, show_locs: bool) -> list[str]:
    outs = ", ".join(f"{names.define(v)}: {v.type}" for v in node.outputs)
    attrs = {k: v for k, v in sorted(node.attrs.items())}
    attr_text = ""
    if attrs:
        attr_text = "[" + ", ".join(f"{k}={format_attr(v)}" for k, v in attrs.items()) + "]"
    args = ", ".join(names(v) for v in node.inputs)
    line = f"{indent}{outs} = {node.op.name}{attr_text} {args}".rstrip()
    if show_locs and node.loc is not None:
        line = line.ljust(_LOC_COLUMN) + f"  # {node.loc}"
    lines = [line]
    for i, region in enumerate(node.regions):
        lines.extend(_format_region(region, names, indent + "  ", f"region{i}", show_locs))
    return lines


def _format_region(region: Region, names: _Namer, indent: str, label: str,
                   show_locs: bool) -> list[str]:
    params = ", ".join(f"{names.define(p)}: {p.type}" for p in region.params)
    lines = [f"{indent}{label}({params}):"]
    for node in region.nodes:
        lines.extend(_format_node(node, names, indent + "  ", show_locs))
    lines.append(f"{indent}  yield " + ", ".join(names(v) for v in region.results))
    return lines


def format_graph(graph: Graph, show_locs: bool = True) -> str:
    names = _Namer()
    params = ", ".join(f"{names.define(p, p.name)}: {p.type}" for p in graph.params)
    result_types = ", ".join(str(v.type) for v in graph.results)
    lines = [f"def {graph.name}({params}) -> ({result_types}):"]
    for node in graph.nodes:
        lines.extend(_format_node(node, names, "  ", show_locs))
    for index, value in sorted(graph.updates.items()):
        lines.append(f"  update {names(graph.params[index])} <- {names(value)}")
    lines.append("  return " + ", ".join(names(v) for v in graph.results))
    return "\n".join(lines)
