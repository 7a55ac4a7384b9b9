"""The IR on its own: building graphs, the text form, the verifier and the
NumPy reference interpreter, on hand-built graphs (control flow included)
and on graphs traced through ``jitaic.jit(...).lower(...)``."""

from __future__ import annotations

import os

import numpy as np
import pytest

import jitaic
from jitaic.errors import ShapeError
from jitaic.ir import ops
from jitaic.ir.graph import Graph, Node, Region, Value, make_node
from jitaic.ir.interpreter import evaluate
from jitaic.ir.printer import format_graph
from jitaic.ir.types import TensorType
from jitaic.ir.verifier import VerificationError, verify

# The reference interpreter runs these tests, numba a fixed sample of them and
# those marked numba (conftest.py: the test pyramid).
TIER = "reference"

F64_34 = TensorType((3, 4), np.float64)


def const(value, weak: bool = False) -> Node:
    return make_node(ops.constant, [], {"value": np.asarray(value), "weak": weak})


def exp_graph() -> Graph:
    """f(x) = (exp(x) * 2, sum(exp(x) * 2, axis=1))"""
    x = Value(F64_34, name="x")
    e = make_node(ops.exp, [x])
    two = const(2.0, weak=True)
    m = make_node(ops.multiply, [e.output, two.output])
    s = make_node(ops.reduce_sum, [m.output], {"keepdims": False, "axes": (1,)})
    return Graph((x,), (e, two, m, s), (m.output, s.output), name="f")


# ---------------------------------------------------------------- printer


def test_printer_typed_ssa_text() -> None:
    text = format_graph(exp_graph())
    lines = text.splitlines()
    assert lines[0] == "def f(%x: f64[3,4]) -> (f64[3,4], f64[3]):"
    assert lines[1].strip() == "%0: f64[3,4] = exp %x"
    assert lines[3].strip() == "%2: f64[3,4] = multiply %0, %1"
    # attributes are sorted by name
    assert lines[4].strip() == "%3: f64[3] = reduce_sum[axes=(1,), keepdims=False] %2"
    assert lines[-1].strip() == "return %2, %3"
    assert str(exp_graph()) == text


def test_printer_is_deterministic_and_locations_switchable() -> None:
    f = jitaic.jit(lambda x: np.tanh(x) * 3.0)
    graph = f.lower(np.ones((2, 2))).ir
    with_locs = format_graph(graph)
    assert with_locs == format_graph(graph)
    assert f"# {os.path.basename(__file__)}:" in with_locs
    without = format_graph(graph, show_locs=False)
    assert "#" not in without
    assert "tanh" in without and "f64[2,2]" in without


def test_weak_types_print_with_a_tilde() -> None:
    assert str(TensorType((), np.float64, weak=True)) == "~f64[]"
    assert str(TensorType((2, 0), np.int32)) == "i32[2,0]"
    assert str(TensorType((), np.bool_)) == "bool[]"


# ---------------------------------------------------------------- verifier


def test_verifier_accepts_a_good_graph() -> None:
    verify(exp_graph())


def test_verifier_rejects_an_undefined_input() -> None:
    stranger = Value(F64_34, name="stranger")  # produced by nothing in the graph
    x = Value(F64_34, name="x")
    node = make_node(ops.add, [x, stranger])
    with pytest.raises(VerificationError, match="add"):
        verify(Graph((x,), (node,), (node.output,)))


def test_verifier_rejects_use_before_definition() -> None:
    x = Value(F64_34, name="x")
    a = make_node(ops.exp, [x])
    b = make_node(ops.negative, [a.output])
    with pytest.raises(VerificationError):
        verify(Graph((x,), (b, a), (b.output,)))


def test_verifier_rejects_a_wrong_output_type() -> None:
    x = Value(F64_34, name="x")
    bad = Value(TensorType((3, 4), np.float32))
    node = Node(ops.exp, (x,), {}, (bad,))
    bad.producer, bad.index = node, 0
    with pytest.raises(VerificationError, match="exp"):
        verify(Graph((x,), (node,), (bad,)))


def test_verifier_rejects_an_undefined_result() -> None:
    x = Value(F64_34, name="x")
    with pytest.raises(VerificationError):
        verify(Graph((x,), (), (Value(F64_34),)))


def test_verifier_rejects_bad_updates() -> None:
    x = Value(F64_34, name="x")
    e = make_node(ops.exp, [x])
    with pytest.raises(VerificationError):
        verify(Graph((x,), (e,), (), updates={1: e.output}))
    r = make_node(ops.reshape, [x], {"shape": (4, 3)})
    with pytest.raises(VerificationError):
        verify(Graph((x,), (r,), (), updates={0: r.output}))


def test_verifier_checks_region_bodies() -> None:
    pred = Value(TensorType((), np.bool_), name="p")
    a = Value(TensorType((3,), np.float64), name="a")
    then_param = Value(a.type)
    stranger = Value(a.type)
    inner = make_node(ops.add, [then_param, stranger])
    then_r = Region((then_param,), (inner,), (inner.output,))
    else_param = Value(a.type)
    else_r = Region((else_param,), (), (else_param,))
    node = make_node(ops.cond, [pred, a], regions=(then_r, else_r))
    with pytest.raises(VerificationError):
        verify(Graph((pred, a), (node,), (node.output,)))


# ---------------------------------------------------------------- shape and dtype rules


def test_make_node_infers_broadcast_and_promotion() -> None:
    a = Value(TensorType((3, 1), np.int32))
    b = Value(TensorType((1, 4), np.float32))
    assert make_node(ops.add, [a, b]).output.type == TensorType((3, 4), np.float64)
    weak = const(0.5, weak=True).output
    f32 = Value(TensorType((2,), np.float32))
    assert make_node(ops.multiply, [f32, weak]).output.type == TensorType((2,), np.float32)
    cmp = make_node(ops.less, [a, b]).output.type
    assert cmp == TensorType((3, 4), np.bool_)


def test_make_node_rejects_bad_broadcast_with_numpys_words() -> None:
    a = Value(TensorType((3,), np.float64))
    b = Value(TensorType((4,), np.float64))
    with pytest.raises(ShapeError, match="could not be broadcast"):
        make_node(ops.add, [a, b])


def test_every_op_has_rules_and_a_reference() -> None:
    known = {ops.ELEMENTWISE, ops.REDUCTION, ops.COMMUTATIVE, ops.VIEW,
             ops.CONSTRUCTOR, ops.EFFECTFUL, ops.ALLOCATES, ops.HAS_REGION,
             ops.CONTROL_FLOW, ops.MAY_RAISE}
    for name, op in ops.OPS.items():
        assert op.name == name
        assert callable(op.infer) and callable(op.reference), name
        assert op.traits <= known, (name, op.traits - known)



@pytest.mark.parametrize("op", list(ops.REDUCE_OPS.values()), ids=lambda op: op.name)
def test_reduction_facts_match_numpy(op) -> None:
    """identity and combine, the facts consumers read, are NumPy's own."""
    x = np.array([[3, 0, 5], [2, 7, 1]], dtype=np.int64)
    assert ops.REDUCTION in op.traits and ops.REDUCE_OPS[op.combine] is op
    np.testing.assert_array_equal(op.reference(x, (0,), False), op.combine.reduce(x, axis=0))
    empty = np.zeros((0, 2), dtype=np.int64)
    if op.identity is None:
        with pytest.raises(ValueError, match=ops.empty_reduction_message(op)):
            op.reference(empty, (0,), False)
        assert op.combine.identity is None
    else:
        np.testing.assert_array_equal(op.reference(empty, (0,), False), [op.identity] * 2)
        assert op.combine.identity == op.identity


# ---------------------------------------------------------------- interpreter


def test_interpreter_runs_a_hand_built_graph() -> None:
    x = np.linspace(-1, 1, 12).reshape(3, 4)
    (m, s), updates = evaluate(exp_graph(), x)
    np.testing.assert_allclose(m, np.exp(x) * 2)
    np.testing.assert_allclose(s, (np.exp(x) * 2).sum(axis=1))
    assert updates == {}


def _cond_graph() -> Graph:
    pred = Value(TensorType((), np.bool_), name="p")
    a = Value(TensorType((3,), np.float64), name="a")
    then_param = Value(a.type)
    two = const(2.0, weak=True)
    doubled = make_node(ops.multiply, [then_param, two.output])
    then_r = Region((then_param,), (two, doubled), (doubled.output,))
    else_param = Value(a.type)
    negated = make_node(ops.negative, [else_param])
    else_r = Region((else_param,), (negated,), (negated.output,))
    node = make_node(ops.cond, [pred, a], regions=(then_r, else_r))
    return Graph((pred, a), (node,), (node.output,), name="g")


def test_cond_graph_prints_verifies_and_runs() -> None:
    graph = _cond_graph()
    verify(graph)
    text = format_graph(graph)
    assert "= cond %p, %a" in text
    assert "region0(" in text and "region1(" in text and text.count("yield") == 2
    a = np.array([1.0, -2.0, 3.0])
    np.testing.assert_array_equal(evaluate(graph, np.array(True), a)[0][0], a * 2)
    np.testing.assert_array_equal(evaluate(graph, np.array(False), a)[0][0], -a)


def test_cond_branches_must_agree() -> None:
    pred = Value(TensorType((), np.bool_))
    a = Value(TensorType((3,), np.float64))
    p1, p2 = Value(a.type), Value(a.type)
    r = make_node(ops.reshape, [p2], {"shape": (3, 1)})
    with pytest.raises(ShapeError):
        make_node(ops.cond, [pred, a], regions=(Region((p1,), (), (p1,)),
                                                Region((p2,), (r,), (r.output,))))


def test_for_loop_graph_runs() -> None:
    i64 = TensorType((), np.int64)
    start, stop, step = const(0).output, const(5).output, const(1).output
    acc = Value(TensorType((3,), np.float64), name="acc")
    i, carried = Value(i64), Value(acc.type)
    added = make_node(ops.add, [carried, i])
    body = Region((i, carried), (added,), (added.output,))
    loop = make_node(ops.for_loop, [start, stop, step, acc], regions=(body,))
    nodes = (start.producer, stop.producer, step.producer, loop)
    graph = Graph((acc,), nodes, (loop.output,))
    verify(graph)
    assert "for_loop" in format_graph(graph)
    out = evaluate(graph, np.zeros(3))[0][0]
    np.testing.assert_array_equal(out, np.full(3, 0 + 1 + 2 + 3 + 4.0))


def test_while_loop_graph_runs() -> None:
    x = Value(TensorType((), np.float64), name="x")
    cp = Value(x.type)
    limit = const(100.0, weak=True)
    test = make_node(ops.less, [cp, limit.output])
    cond_r = Region((cp,), (limit, test), (test.output,))
    bp = Value(x.type)
    two = const(2.0, weak=True)
    doubled = make_node(ops.multiply, [bp, two.output])
    body_r = Region((bp,), (two, doubled), (doubled.output,))
    loop = make_node(ops.while_loop, [x], regions=(cond_r, body_r))
    graph = Graph((x,), (loop,), (loop.output,))
    verify(graph)
    assert float(evaluate(graph, np.array(3.0))[0][0]) == 192.0


# ---------------------------------------------------------------- traced graphs


def _traced_program(x, w):
    h = np.tanh(x @ w)
    return h.sum(axis=0) / h.shape[0], h.max()


def test_traced_graph_verifies_and_interprets_like_numpy(rng) -> None:
    x, w = rng.normal(size=(5, 3)), rng.normal(size=(3, 2))
    f = jitaic.jit(_traced_program)
    lowered = f.lower(x, w)
    graph = lowered.ir
    verify(graph)
    assert lowered.as_text() == format_graph(graph)
    assert {n.op.name for n in graph.walk()} >= {"matmul", "tanh", "reduce_sum", "reduce_max"}
    results, updates = evaluate(graph, x, w)
    want = _traced_program(x, w)
    assert updates == {}
    assert len(results) == 2
    for got, expected in zip(results, want):
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    for got, expected in zip(f(x, w), want):
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def _mutating(x, v):
    x[1:] += v
    return x.sum()


def test_traced_updates_print_and_interpret() -> None:
    x, v = np.arange(6.0).reshape(3, 2), np.array([10.0, 20.0])
    graph = jitaic.jit(_mutating).lower(x, v).ir
    verify(graph)
    assert set(graph.updates) == {0}
    assert "update %x <- %" in format_graph(graph)
    (total,), updates = evaluate(graph, x.copy(), v)
    want_x = x.copy()
    want_total = _mutating(want_x, v)
    np.testing.assert_array_equal(updates[0], want_x)
    assert float(total) == want_total


def test_every_traced_node_has_a_user_location() -> None:
    graph = jitaic.jit(_traced_program).lower(np.ones((4, 3)), np.ones((3, 2))).ir
    here = os.path.basename(__file__)
    for node in graph.walk():
        assert node.loc is not None, node.op.name
        assert os.path.basename(node.loc.filename) == here, (node.op.name, node.loc)
