"""Graphviz pictures of an optimised graph: ``f.lower(x).graph()``.

The picture shows what the compiler did to a function: every node of the
optimised IR with its type and the source line it came from, each fused
kernel (and each row loop around kernels) as a cluster, loops and branches as
boxes holding their bodies, and matrix products and factorisations that call
BLAS or LAPACK marked. The DOT text is always available; SVG and PNG need
Graphviz's Python binding (``pip install "jitaic[graph]"``, which installs
pygraphviz).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path

from jitaic.ir import ops
from jitaic.ir.graph import Graph, Node, Region, Value
from jitaic.ir.printer import format_attr

# what each body of a control-flow op is, in the order of its regions
_REGION_ROLES = {"cond": ("then", "else"), "while_loop": ("condition", "body"),
                 "for_loop": ("body",)}
_COLOURS = {"param": "#dbe8f6", "result": "#e2f0d9", "kernel": "#fff5d6",
            "rows": "#fde9c9", "library": "#f6d5d5", "loop": "#f2f2f2",
            "constant": "#ffffff"}
_FONT = 'fontname="Helvetica"'


def library_call(node: Node) -> str | None:
    """"BLAS" or "LAPACK" where the lowering calls a numerical library for the
    node (float matrix products, the np.linalg routines), else None."""
    from jitaic.lower.kernels.linalg import LAPACK_CALLS  # imports numba

    if node.op is ops.matmul and node.output.dtype.kind == "f":
        return "BLAS"
    return "LAPACK" if node.op in LAPACK_CALLS else None


def quoted(text: str) -> str:
    """A DOT string literal: user text (names, file names) stays data."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n") + '"'


class Picture:
    """A graph as DOT text (``source``), rendered by Graphviz on request."""

    def __init__(self, source: str) -> None:
        self.source = source

    def __str__(self) -> str:
        return self.source

    def pipe(self, format: str = "svg") -> bytes:
        """The picture rendered by Graphviz's ``dot`` layout: svg, png, pdf..."""
        try:
            import pygraphviz
        except ImportError:
            raise ImportError("rendering a picture needs Graphviz's Python binding, "
                              "pygraphviz (jitaic's \"graph\" extra); .source is the DOT "
                              "text") from None
        return pygraphviz.AGraph(string=self.source).draw(format=format, prog="dot")

    def svg(self) -> str:
        return self.pipe("svg").decode()

    def save(self, path: str | Path) -> Path:
        """Write the picture; the suffix picks the format (``.dot`` is the text)."""
        path = Path(path)
        if path.suffix == ".dot":
            path.write_text(self.source)
        else:
            path.write_bytes(self.pipe(path.suffix.lstrip(".") or "svg"))
        return path

    def _repr_svg_(self) -> str:  # notebooks show the picture itself
        return self.svg()


class _Drawing:
    """Builds the DOT text of one graph: ids are numbered in program order, so
    the same graph always gives the same text."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.ids: dict[int, str] = {}  # id(Value) -> the DOT node drawing it
        self.edges: list[str] = []
        self._count = itertools.count()

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._count)}"

    def box(self, dot_id: str, label: str, indent: str, **style: str) -> None:
        attrs = "".join(f", {k}={quoted(v)}" for k, v in style.items())
        self.lines.append(f"{indent}{dot_id} [label={quoted(label)}{attrs}]")

    def cluster(self, label: str, indent: str, colour: str, dashed: bool = False
                ) -> _Cluster:
        return _Cluster(self, label, indent, colour, dashed)


class _Cluster:
    def __init__(self, drawing: _Drawing, label: str, indent: str, colour: str,
                 dashed: bool) -> None:
        self.drawing, self.indent = drawing, indent
        self.header = (f"{indent}subgraph cluster_{next(drawing._count)} {{ "
                       f"label={quoted(label)}; style=\"{'dashed,' if dashed else ''}"
                       f"filled,rounded\"; fillcolor=\"{colour}\"; labeljust=l;")

    def __enter__(self) -> str:
        self.drawing.lines.append(self.header)
        return self.indent + "  "

    def __exit__(self, *exc: object) -> None:
        self.drawing.lines.append(self.indent + "}")


def _type_text(values: Sequence[Value]) -> str:
    return ", ".join(str(v.type) for v in values)


def _node_label(node: Node) -> str:
    attrs = [f"{k}={format_attr(v)}" for k, v in sorted(node.attrs.items())
             if k != "value" and len(format_attr(v)) <= 24]
    lines = [node.op.name + (f" [{', '.join(attrs)}]" if attrs else "")]
    library = library_call(node)
    if library:
        lines[0] += f"  ({library})"
    lines.append(_type_text(node.outputs))
    if node.loc is not None:
        lines.append(str(node.loc))
    return "\n".join(lines)


def _draw_node(d: _Drawing, node: Node, indent: str, bodies) -> None:
    if node.regions:
        _draw_control_flow(d, node, indent, bodies)
        return
    dot_id = d.new_id("n")
    if node.op is ops.constant:
        value = node.attrs["value"]
        text = repr(value.item()) if value.ndim == 0 else f"constant {node.output.type}"
        d.box(dot_id, text, indent, shape="plaintext", fillcolor=_COLOURS["constant"])
    else:
        colour = _COLOURS["library"] if library_call(node) else "white"
        d.box(dot_id, _node_label(node), indent, fillcolor=colour)
    _connect(d, node, dot_id)


def _connect(d: _Drawing, node: Node, dot_id: str) -> None:
    for v in node.inputs:
        if id(v) in d.ids:
            d.edges.append(f"  {d.ids[id(v)]} -> {dot_id}")
    for v in node.outputs:
        d.ids[id(v)] = dot_id


def _draw_control_flow(d: _Drawing, node: Node, indent: str, bodies) -> None:
    """A box holding the op's entry, one cluster per body, and its exit (the
    values it hands on), which the bodies' yields flow into."""
    where = f"  {node.loc}" if node.loc else ""
    with d.cluster(f"{node.op.name}{where}", indent, _COLOURS["loop"], dashed=True) as inner:
        entry = d.new_id("n")
        d.box(entry, node.op.name, inner, shape="hexagon", fillcolor="white")
        for v in node.inputs:
            if id(v) in d.ids:
                d.edges.append(f"  {d.ids[id(v)]} -> {entry}")
        roles = _REGION_ROLES.get(node.op.name, ())
        yields = []
        for k, region in enumerate(node.regions):
            role = roles[k] if k < len(roles) else f"region {k}"
            with d.cluster(role, inner, "white") as body_indent:
                names = ["index"] if node.op is ops.for_loop else []
                yields.append(_draw_region(d, region, body_indent, entry, names))
                if not region.params:  # a branch: entered from the entry all the same
                    d.edges.append(f"  {entry} -> {yields[-1]} [style=invis]")
                _draw_schedule(d, bodies(region.nodes, region.results), body_indent, bodies)
                _draw_yield(d, region, body_indent, yields[-1])
        exit_ = d.new_id("n")
        d.box(exit_, f"out: {_type_text(node.outputs) or 'nothing'}", inner,
              shape="hexagon", fillcolor="white")
    d.edges += [f"  {y} -> {exit_} [style=dashed]" for y in yields]
    for v in node.outputs:
        d.ids[id(v)] = exit_


def _draw_region(d: _Drawing, region: Region, indent: str, entry: str,
                 names: list[str]) -> str:
    """The body's parameters (fed by the entry); returns its yield's id."""
    for k, p in enumerate(region.params):
        dot_id = d.new_id("p")
        name = names[k] if k < len(names) else f"carried {k - len(names)}"
        d.box(dot_id, f"{name}: {p.type}", indent, shape="ellipse",
              fillcolor=_COLOURS["param"])
        d.edges.append(f"  {entry} -> {dot_id} [style=dashed]")
        d.ids[id(p)] = dot_id
    return d.new_id("y")


def _draw_yield(d: _Drawing, region: Region, indent: str, dot_id: str) -> None:
    d.box(dot_id, "yield", indent, shape="plaintext", fillcolor="white")
    for v in region.results:
        if id(v) in d.ids:
            d.edges.append(f"  {d.ids[id(v)]} -> {dot_id}")


def _draw_schedule(d: _Drawing, schedule: Sequence, indent: str, bodies) -> None:
    from jitaic.lower.fusion import FusionGroup, RowGroup, extents_text

    for item in schedule:
        if isinstance(item, RowGroup):
            label = f"row loop over {list(item.rows)}"
            with d.cluster(label, indent, _COLOURS["rows"]) as inner:
                _draw_schedule(d, item.members, inner, bodies)
        elif isinstance(item, FusionGroup) and len(item.nodes) > 1:
            label = f"fused kernel over [{extents_text(item.domain)}]: {len(item.nodes)} ops"
            with d.cluster(label, indent, _COLOURS["kernel"]) as inner:
                for node in item.nodes:
                    _draw_node(d, node, inner, bodies)
        elif isinstance(item, FusionGroup):
            _draw_node(d, item.nodes[0], indent, bodies)
        else:
            _draw_node(d, item, indent, bodies)


def _outputs(graph: Graph) -> Iterator[tuple[str, Value]]:
    for k, v in enumerate(graph.results):
        yield f"result {k}: {v.type}", v
    for index, v in sorted(graph.updates.items()):
        yield f"writes {graph.params[index].name or f'argument {index}'}", v


def draw(graph: Graph) -> Picture:
    """The picture of an optimised graph, with the kernels the fusion planner
    groups its nodes into (the same plan the code generator follows)."""
    from jitaic.lower.fusion import plan

    d = _Drawing()
    d.lines += [f"digraph {quoted(graph.name)} {{",
                f"  graph [rankdir=TB, {_FONT}, fontsize=11, newrank=true]",
                f"  node [shape=box, style=\"rounded,filled\", {_FONT}, fontsize=10]",
                "  edge [color=\"#555555\", arrowsize=0.6]"]
    for k, p in enumerate(graph.params):
        dot_id = d.new_id("p")
        d.box(dot_id, f"{p.name or f'argument {k}'}\n{p.type}", "  ", shape="invhouse",
              fillcolor=_COLOURS["param"])
        d.ids[id(p)] = dot_id
    escaping = (*graph.results, *graph.updates.values())
    _draw_schedule(d, plan(graph.nodes, escaping), "  ", plan)
    for label, v in _outputs(graph):
        dot_id = d.new_id("r")
        d.box(dot_id, label, "  ", shape="house", fillcolor=_COLOURS["result"])
        if id(v) in d.ids:
            d.edges.append(f"  {d.ids[id(v)]} -> {dot_id}")
    return Picture("\n".join([*d.lines, *d.edges, "}"]) + "\n")
