"""Whether a traced function can run block by block along chunked axes.

A function is *blockwise* along a chunked axis when applying it to each block
and putting the results side by side gives what it gives on the whole array.
The caller traces the function twice, at two block lengths per chunked axis
(``Lengths``), and ``analyse`` decides from the two graphs:

- the graphs must be the same but for those lengths: a graph that uses a
  block's length as a value (``x / len(x)``, ``np.arange(len(x))``) would be
  wrong on every block;
- an axis of a value whose length follows a chunked axis's carries that
  axis's label; every op must keep labelled axes apart: elementwise ops,
  reductions and contractions over other axes, transposes and full slices do;
  a reduction, scan, sort or contraction *along* a labelled axis does not;
- the one exception is the function's result itself being a full reduction
  (sum, mean, max, min, any, all) of a blockwise expression: each block then
  gives a partial that a reduction tree combines.

This module reads IR only; ``dask_arrays`` runs the plan on dask arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from jitaic.errors import UnsupportedError, at
from jitaic.ir import ops
from jitaic.ir.graph import Graph, Node, Value

# Full reductions whose per-block partials combine with the same reduction.
FULL_REDUCTIONS = {ops.reduce_sum: "sum", ops.reduce_max: "max", ops.reduce_min: "min",
                   ops.reduce_any: "any", ops.reduce_all: "all"}


@dataclass(frozen=True)
class Lengths:
    """The lengths each chunked axis (a label, 0, 1, ...) was traced at, how
    to name it to the user ("axis 0 of x") and how to make it one chunk."""

    first: tuple[int, ...]
    second: tuple[int, ...]
    names: tuple[str, ...]
    rechunks: tuple[str, ...]  # "x.rechunk({0: -1})"

    def is_pair(self, a: object, b: object) -> bool:
        return any((a, b) == pair for pair in zip(self.first, self.second, strict=True))

    def label(self, a: int | None, b: int | None) -> int | None:
        """The label of an axis of length ``a`` in one trace and ``b`` in the other."""
        if a == b:
            return None
        for label, pair in enumerate(zip(self.first, self.second, strict=True)):
            if pair == (a, b):
                return label
        raise NotBlockwise("an axis whose length follows a chunked axis's in another way "
                           "(a reshape merging it with other axes)")


@dataclass(frozen=True)
class Plan:
    """How to run the function block by block.

    ``labels``: for each result, for each of its axes, the chunked axis it
    follows (or None). ``reduction``: None, or how per-block results combine
    when the one result is a full reduction ("sum", "mean", "max", "min",
    "any", "all").
    """

    labels: tuple[tuple[int | None, ...], ...]
    reduction: str | None = None


class NotBlockwise(UnsupportedError):
    """The function mixes elements across blocks of a chunked axis."""


# ---------------------------------------------------------------- crossing axes
# For each op: the axes of each input along which it combines elements (so a
# block alone cannot compute its part of the result). Elementwise ops have
# none; an op with no rule is assumed to cross every axis.

Crossing = Callable[[Node], list[set[int]]]
CROSSING: dict[ops.Op, Crossing] = {}
crossing_rule = ops.registrar(CROSSING, "blockwise rule")


def _none(node: Node) -> list[set[int]]:
    return [set() for _ in node.inputs]


def _all_axes(node: Node) -> list[set[int]]:
    return [set(range(v.type.ndim)) for v in node.inputs]


crossing_rule(ops.transpose, ops.broadcast_to, ops.constant, ops.full)(_none)


@crossing_rule(*ops.REDUCE_OPS.values())
def _reduced(node: Node) -> list[set[int]]:
    return [set(node.attrs["axes"])]


@crossing_rule(ops.argmax, ops.argmin)
def _arg_reduced(node: Node) -> list[set[int]]:
    axis = node.attrs["axis"]
    return _all_axes(node) if axis is None else [{axis}]


@crossing_rule(ops.cumsum, ops.cumprod, ops.cummax, ops.cummin, ops.argsort, ops.sort)
def _scanned(node: Node) -> list[set[int]]:
    return [{node.attrs["axis"]}]


@crossing_rule(ops.fft)
def _transformed(node: Node) -> list[set[int]]:
    return [{node.inputs[0].type.ndim - 1}]


@crossing_rule(ops.concatenate)
def _joined(node: Node) -> list[set[int]]:
    return [{node.attrs["axis"]} for _ in node.inputs]


@crossing_rule(ops.matmul)
def _contracted(node: Node) -> list[set[int]]:
    a, b = (v.type.ndim for v in node.inputs)
    return [{a - 1}, {0 if b == 1 else b - 2}]


@crossing_rule(ops.reshape)
def _reshaped(node: Node) -> list[set[int]]:
    """Adding or removing length-1 axes keeps the others apart; anything else
    moves elements between axes."""
    (x,) = node.inputs
    def kept(shape):
        return [d for d in shape if d != 1]
    return _none(node) if kept(x.shape) == kept(node.output.shape) else _all_axes(node)


@crossing_rule(ops.getitem)
def _indexed(node: Node) -> list[set[int]]:
    """A full slice keeps an axis whole; an integer or a part of it selects
    from one place of the whole axis."""
    (x,) = node.inputs
    return [{dim for dim, entry in enumerate(node.attrs["index"])
             if entry != (0, x.shape[dim], 1)}]


def _crossing(node: Node) -> list[set[int]]:
    if ops.ELEMENTWISE in node.op.traits:
        return _none(node)
    rule = CROSSING.get(node.op)
    return rule(node) if rule is not None else _all_axes(node)


# ---------------------------------------------------------------- the analysis

def analyse(first: Graph, second: Graph, lengths: Lengths) -> Plan:
    """The plan for running the function traced as ``first`` and ``second`` (at
    ``lengths``) block by block; NotBlockwise says why it cannot."""
    if first.updates:
        raise NotBlockwise("the function writes into its arguments; dask arrays are "
                           "read-only")
    pairs, differing = _paired(first, second, lengths)
    tail = _full_reduction(first.results[0], pairs) if len(first.results) == 1 else None
    labels = {v1: _labels_of(v1, v2, lengths) for v1, v2 in pairs.items()}
    for node in first.walk():
        _check_node(node, labels, tail, lengths)
    for node in differing:
        if tail is None or node not in tail[2]:  # a mean's count may differ
            raise _depends_on_length(node)
    every = set(range(len(lengths.first)))
    if tail is not None:
        reduced = tail[1]
        if set(labels[reduced]) - {None} != every:
            raise NotBlockwise("the reduced expression does not follow every chunked axis")
        return Plan((), tail[0])
    for result in first.results:
        if set(labels[result]) - {None} != every:
            raise NotBlockwise("a result does not follow every chunked axis (it would be "
                               "computed once per block)")
    return Plan(tuple(labels[result] for result in first.results))


def _paired(first: Graph, second: Graph,
            lengths: Lengths) -> tuple[dict[Value, Value], list[Node]]:
    """Each value of ``first`` with its counterpart in ``second``, after
    checking that the two graphs are one program (NotBlockwise if not), and
    the constants whose values differ between them."""
    pairs = dict(zip(first.params, second.params, strict=True))
    differing = []
    nodes1, nodes2 = list(first.walk()), list(second.walk())
    if len(nodes1) != len(nodes2):
        raise _depends_on_length(nodes1[0] if nodes1 else None)
    for n1, n2 in zip(nodes1, nodes2, strict=True):
        same = (n1.op is n2.op and len(n1.inputs) == len(n2.inputs)
                and all(pairs.get(a) is b for a, b in zip(n1.inputs, n2.inputs, strict=True))
                and n1.attrs.keys() == n2.attrs.keys()
                and len(n1.regions) == len(n2.regions))
        if not same:
            raise _depends_on_length(n1)
        if not all(_same_attr(n1.attrs[k], n2.attrs[k], lengths) for k in n1.attrs):
            differing.append(n1)
        pairs.update(zip(n1.outputs, n2.outputs, strict=True))
        for r1, r2 in zip(n1.regions, n2.regions, strict=True):
            pairs.update(zip(r1.params, r2.params, strict=True))
    if [pairs.get(r) for r in first.results] != list(second.results):
        raise _depends_on_length(None)
    return pairs, differing


def _same_attr(a: object, b: object, lengths: Lengths) -> bool:
    """Attributes equal up to the traced lengths: an integer may be the traced
    length of a chunked axis (a shape, a slice bound; the labels check what
    follows from it); constants must hold the same values, though an array of
    one repeated value may differ in shape."""
    if isinstance(a, (np.ndarray, np.generic)) and isinstance(b, (np.ndarray, np.generic)):
        return _same_constant(np.asarray(a), np.asarray(b))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same_attr(x, y, lengths) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    return a == b or (isinstance(a, int) and lengths.is_pair(a, b))


def _same_constant(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype != b.dtype or a.ndim != b.ndim:
        return False
    nan = a.dtype.kind in "fc"
    if a.shape == b.shape:
        return np.array_equal(a, b, equal_nan=nan)
    return (a.size > 0 and b.size > 0 and np.array_equal(a, np.full_like(a, a.flat[0]),
                                                          equal_nan=nan)
            and np.array_equal(b, np.full_like(b, a.flat[0]), equal_nan=nan))


def _depends_on_length(node: Node | None) -> NotBlockwise:
    where = at(node.loc) if node is not None and node.loc is not None else ""
    return NotBlockwise(f"the function computes with the length of a chunked axis (its "
                        f"program changes with the block length){where}")


def _labels_of(v1: Value, v2: Value, lengths: Lengths) -> tuple[int | None, ...]:
    labels = tuple(lengths.label(a, b) for a, b in zip(v1.shape, v2.shape, strict=True))
    seen = [label for label in labels if label is not None]
    if len(seen) != len(set(seen)):
        raise NotBlockwise("a value has two axes that follow one chunked axis (an outer "
                           "product of the chunked axis with itself)")
    return labels


def _full_reduction(result: Value,
                    pairs: dict[Value, Value]) -> tuple[str, Value, set[Node]] | None:
    """(kind, the reduced expression, the tail nodes) when the result is a full
    reduction the blocks can compute in parts; None otherwise. A sum or mean
    may be scaled by constants (``0.5 * np.sum(r ** 2)``): it stays linear."""
    if result.type.ndim:
        return None
    scaling: set[Node] = set()
    while (scaled := _scaled(result, pairs)) is not None:
        node, result = scaled
        scaling |= {node, *(v.producer for v in node.inputs if v is not result)}
    tail = _reduction_tail(result, pairs)
    if tail is None or (scaling and tail[0] not in ("sum", "mean")):
        return None
    return tail[0], tail[1], tail[2] | scaling


def _scaled(v: Value, pairs: dict[Value, Value]) -> tuple[Node, Value] | None:
    """(the node, the scaled value) when ``v`` is a 0-d value times or over a
    constant that is the same at every block length (a mean's count is not)."""
    node = v.producer
    if node is None or node.op not in (ops.multiply, ops.true_divide) or any(
            x.type.ndim for x in node.inputs):
        return None

    def fixed(x: Value) -> bool:
        return (x.producer is not None and x.producer.op is ops.constant
                and x.producer.attrs["value"] == pairs[x].producer.attrs["value"])

    a, b = node.inputs
    if fixed(b):
        return node, a
    return (node, b) if fixed(a) and node.op is ops.multiply else None


def _reduction_tail(result: Value,
                    pairs: dict[Value, Value]) -> tuple[str, Value, set[Node]] | None:
    node = result.producer
    if node is None:
        return None
    if node.op in FULL_REDUCTIONS and len(node.attrs["axes"]) == node.inputs[0].type.ndim:
        return FULL_REDUCTIONS[node.op], node.inputs[0], {node}
    if node.op is ops.true_divide:
        total, count = (v.producer for v in node.inputs)
        if (total is not None and count is not None and total.op is ops.reduce_sum
                and count.op is ops.constant
                and len(total.attrs["axes"]) == total.inputs[0].type.ndim
                and _counts_elements(count, total.inputs[0], pairs)):
            return "mean", total.inputs[0], {node, total, count}
    return None


def _counts_elements(count: Node, x: Value, pairs: dict[Value, Value]) -> bool:
    """Whether the constant is the number of elements of ``x`` in both traces."""
    second = pairs[count.output].producer
    return (int(count.attrs["value"]) == int(np.prod(x.shape))
            and int(second.attrs["value"]) == int(np.prod(pairs[x].shape)))


def _check_node(node: Node, labels: dict[Value, tuple], tail, lengths: Lengths) -> None:
    labelled = [labels[v] for v in node.inputs]
    if all(label is None for ls in labelled for label in ls):
        return
    if tail is not None and node in tail[2]:
        return
    if node.regions:
        raise NotBlockwise(f"control flow ({node.op.name}) over a chunked array is not "
                           f"supported on dask arrays yet{_where(node)}")
    for ls, axes in zip(labelled, _crossing(node), strict=True):
        for axis in sorted(axes):
            label = ls[axis] if axis < len(ls) else None
            if label is not None:
                raise NotBlockwise(
                    f"{_op_name(node)}{_where(node)} combines elements along "
                    f"{lengths.names[label]}, which is chunked: make that axis one chunk "
                    f"({lengths.rechunks[label]})")


def _op_name(node: Node) -> str:
    if node.op.ufunc is not None:
        return node.op.ufunc.__name__
    return {ops.getitem: "indexing"}.get(node.op, node.op.name.removeprefix("reduce_"))


def _where(node: Node) -> str:
    return at(node.loc) if node.loc is not None else ""


