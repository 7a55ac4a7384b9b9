"""The loop IR under the generated code (jitaic/lower/loop_ir.py): its
passes, its rendering table and how users see it."""

from __future__ import annotations

import logging
import typing

import numba
import numpy as np
import pytest
from helpers import emitted_lines

import jitaic
from jitaic import config
from jitaic.ir import ops
from jitaic.ir.graph import Value, make_node
from jitaic.ir.types import TensorType
from jitaic.lower import codegen, loop_ir, loop_passes, runtime
from jitaic.lower.kernels.scalar import scalar_expression


def _emitter(parallel: bool = True) -> codegen.Emitter:
    em = codegen.Emitter(parallel_min_work=1 if parallel else None)
    return em


def _lines(em: codegen.Emitter) -> list[str]:
    return emitted_lines(em)


def test_every_statement_kind_has_a_rendering_rule_or_a_pass_lowering_it():
    assert set(typing.get_args(loop_ir.Stmt)) == set(loop_ir.RENDER) | {loop_ir.Reduce}


def _row_sum(em: codegen.Emitter, length: int, chunk: int, whole: bool) -> None:
    em.emit(loop_ir.Reduce("acc", "{0} + {1}", "rt.pairwise_sum(lanes, 0, {count}, 0.0)",
                           True, "np.float64", "i", length, chunk, "lanes", "e",
                           [loop_ir.Assign("e", "x[i] * x[i]")],
                           allocate=f"np.empty({chunk}, np.float64)", whole=whole))


def test_a_short_row_is_reduced_as_one_chunk():
    em = _emitter()
    _row_sum(em, 100, 1024, whole=True)
    assert _lines(em) == ["lanes = np.empty(1024, np.float64)", "for i in range(100):",
                          "e = x[i] * x[i]", "lanes[i] = e",
                          "acc = acc + rt.pairwise_sum(lanes, 0, 100, 0.0)"]
    assert em.constants == []


def test_a_long_row_is_reduced_in_subtrees_of_numpys_pairwise_sum():
    em = _emitter(parallel=False)
    _row_sum(em, 10_000, 1024, whole=True)
    lines = _lines(em)
    lengths, program = loop_passes.pairwise_chunks(10_000, 1024)
    assert sum(lengths) == 10_000 and max(lengths) <= 1024 and program.count(1) == len(lengths)
    sizes, starts, tree = em.constants
    np.testing.assert_array_equal(sizes, lengths)
    np.testing.assert_array_equal(starts, np.cumsum([0, *lengths[:-1]]))
    np.testing.assert_array_equal(tree, program)
    assert f"for chunk in range({len(lengths)}):" in lines
    assert "i = c + j" in lines and "chunk_sums[chunk] = rt.pairwise_sum(lanes, 0, n, 0.0)" in lines
    assert lines[-1] == "acc = acc + rt.combine_postfix(chunk_sums, const2)"
    assert not em.launches_threads


def test_a_whole_arrays_chunks_run_on_the_threads_each_with_its_own_buffer():
    em = _emitter()
    _row_sum(em, 1 << 20, 1024, whole=True)
    lines = _lines(em)
    assert em.launches_threads and "for thread in numba.prange(threads):" in lines
    assert lines.index("for thread in numba.prange(threads):") \
        < lines.index("lanes = np.empty(1024, np.float64)")
    em = _emitter()
    _row_sum(em, 1 << 20, 1024, whole=False)  # a row among others: serial chunks
    assert "numba.prange" not in "\n".join(_lines(em)) and not em.launches_threads


def test_scratch_outside_parallel_loops_is_allocated_once_per_call():
    em = _emitter()
    with em.loops([("i", 100)]):  # serial: no work given
        em.scratch("lanes = np.empty(8)")
        em.store("out", ["i"], "lanes[0]")
    assert _lines(em) == ["lanes = np.empty(8)", "for i in range(100):", "out[i] = lanes[0]"]


def test_scratch_inside_a_parallel_loop_is_allocated_once_per_thread():
    em = _emitter()
    with em.loops([("i", 100), ("j", 4)], work=400):
        em.scratch("lanes = np.empty(8)")
        em.scratch("lanes = np.empty(8)")  # the same buffer asked for twice: once
        em.store("out", ["i", "j"], "lanes[j]")
    assert _lines(em) == [
        "numba_threads = rt.limit_threads()", f"threads = {loop_passes.THREAD_BLOCKS}",
        "for thread in numba.prange(threads):", "lanes = np.empty(8)",
        "for i in range(thread * 100 // threads, (thread + 1) * 100 // threads):",
        "for j in range(4):", "out[i, j] = lanes[j]", "rt.restore_threads(numba_threads)"]


def test_a_row_loop_allocates_its_kernels_outputs_before_its_rows():
    em = _emitter(parallel=False)
    with em.loops([("r", 4)], rows=True):
        with em.loops([("j", 8)]):
            em.allocate("out = np.empty((4, 8), np.float64)")
            em.store("out", ["r", "j"], "1.0")
    assert _lines(em) == ["out = np.empty((4, 8), np.float64)", "for r in range(4):",
                          "for j in range(8):", "out[r, j] = 1.0"]


def test_a_branch_of_comments_only_still_has_a_statement():
    em = _emitter()
    with em.if_("c"):
        em.comment("nothing to do")
    with em.else_():
        em.assign("x", "1")
    assert _lines(em) == ["if c:", "# nothing to do", "pass", "else:", "x = 1"]


def test_unread_pure_values_are_dropped_and_read_ones_kept():
    """A view of a view that nothing reads goes (both); one a store reads
    stays, and so does an impure assignment nothing reads."""
    em = _emitter(parallel=False)
    em.pure("row", "x[i]")
    em.pure("part", "row[1:3]")  # unread: then row is unread too
    em.pure("col", "x[:, j]")
    em.assign("y", "rt.effect()")  # not pure: stays
    with em.loops([("k", 4)]):
        em.store("out", ["k"], "col[k]")
    assert _lines(em) == ["col = x[:, j]", "y = rt.effect()", "for k in range(4):",
                          "out[k] = col[k]"]


def test_a_windows_repeated_bounds_are_computed_once_while_their_inputs_stand():
    """The second slice_range of the same bounds (and its clamp) go, and
    later statements read the first's variables, also inside a loop and in a
    bounds expression that then repeats in turn; an error message's text is
    not renamed; after an input is assigned, the bounds are computed again."""
    em = _emitter(parallel=False)
    em.pure("first, count", "rt.slice_range(np.int64(0), np.int64(k), np.int64(1), np.int64(9))")
    em.pure("first2", "np.maximum(first, 0)")
    em.pure("first3, count2", "rt.slice_range(np.int64(0), np.int64(k), np.int64(1), np.int64(9))")
    em.pure("first4", "np.maximum(first3, 0)")
    em.pure("first5, count3", "rt.slice_range(np.int64(count2 - 1), np.int64(-1), np.int64(-1), "
                              "np.int64(count2))")
    em.pure("first6, count4", "rt.slice_range(np.int64(count - 1), np.int64(-1), np.int64(-1), "
                              "np.int64(count))")
    with em.loops([("i", "count4")]):
        em.store("out", ["first4 + i"], "x[first6 - i]")
    em.raise_("rt.Oops(count2, ' (in count2)')")
    em.line("k = k + 1")
    em.pure("first7, count5", "rt.slice_range(np.int64(0), np.int64(k), np.int64(1), np.int64(9))")
    em.store("y", ["0"], "count5")
    assert _lines(em) == [
        "first, count = rt.slice_range(np.int64(0), np.int64(k), np.int64(1), np.int64(9))",
        "first2 = np.maximum(first, 0)",
        "first5, count3 = rt.slice_range(np.int64(count - 1), np.int64(-1), np.int64(-1), "
        "np.int64(count))",
        "for i in range(count3):", "out[first2 + i] = x[first5 - i]",
        "raise rt.Oops(count, ' (in count2)')",
        "k = k + 1",
        "first7, count5 = rt.slice_range(np.int64(0), np.int64(k), np.int64(1), np.int64(9))",
        "y[0] = count5"]


def test_equal_scalar_constants_are_one_variable_on_top():
    def f(x):
        for i in range(3):
            x = x * 2.0 + i
        return x * 2.0

    source = jitaic.jit(f, mode="ast").lower(np.ones(3)).source()
    assert source.count("np.float64(2.0)") == 1
    assert source.index("np.float64(2.0)") < source.index("    for it in range(")


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_lowered_shows_the_loop_ir_and_the_dump_knob_logs_it(caplog):
    x = np.random.default_rng(0).standard_normal((512, 1024))
    with config.override(dump_ir="after:split_by_thread,loops"), \
            caplog.at_level(logging.DEBUG, logger="jitaic"):
        lowered = jitaic.jit(softmax).lower(x)
    text = lowered.loops()
    assert text.startswith("function softmax(x)")
    assert "store " in text and "allocate " in text
    parallel = "(parallel)" in text
    assert parallel == ("numba.prange" in lowered.source())
    assert ("(row loop)" in text) != parallel  # split: the rows run per thread
    dumps = [r.getMessage() for r in caplog.records if r.getMessage().startswith("loop IR")]
    assert [d.splitlines()[0] for d in dumps] == ["loop IR after split_by_thread:",
                                                  "loop IR of softmax:"]
    assert dumps[1].split("\n", 1)[1] == text


def test_loop_passes_are_timed_and_their_times_logged_at_debug_2(caplog):
    x = np.random.default_rng(0).standard_normal((64, 128))
    with config.override(debug=2, cache_dir="off"), \
            caplog.at_level(logging.DEBUG, logger="jitaic"):
        jitaic.jit(softmax)(x)
    messages = [r.getMessage() for r in caplog.records]
    line = next(m for m in messages if m.startswith("loop passes of softmax: "))
    timed = [part.rsplit(" ", 2)[0] for part in line.split(": ", 1)[1].split(", ")]
    assert timed == [name for name, _ in loop_passes.LOOP_PASSES]


UNCAST_OPS = [ops.add, ops.subtract, ops.multiply, ops.true_divide, ops.negative, ops.where,
              ops.less, ops.less_equal, ops.greater, ops.greater_equal, ops.equal, ops.not_equal]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.uint8])
def test_an_element_left_without_its_cast_has_the_output_type(dtype) -> None:
    """scalar_expression leaves out the cast to the output dtype only where
    numba already types the expression so: compiled on scalars of the
    operands' dtypes, each op's element has its output's numba type."""
    dtype = np.dtype(dtype)
    a, b = (Value(TensorType((), dtype), name=name) for name in "ab")
    c = Value(TensorType((), np.dtype(bool)), name="c")
    nodes = [make_node(op, [a] if op is ops.negative else [c, a, b] if op is ops.where
                       else [a, b]) for op in UNCAST_OPS]
    exprs = [scalar_expression(node, [v.name for v in node.inputs]) for node in nodes]
    namespace = {"np": np, "rt": runtime}
    exec(f"def elements(a, b, c):\n    return ({', '.join(exprs)},)\n", namespace)
    elements = numba.njit(namespace["elements"])
    elements(dtype.type(3), dtype.type(2), np.bool_(True))
    returned = elements.overloads[elements.signatures[0]].signature.return_type
    for node, expr, got in zip(nodes, exprs, returned, strict=True):
        assert got == numba.from_dtype(node.output.dtype), f"{node.op.name}: {expr}"


def _arrays_assigned_into_subscripts(source: str) -> list[str]:
    """Statements ``x[...] = f(...)``: numba compiles its broadcasting
    setitem for each (seconds per process, uncached)."""
    import ast

    return [ast.unparse(node) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            and any(isinstance(t, ast.Subscript) for t in node.targets)
            and not ast.unparse(node.value.func).startswith(("np.", "rt.wrapping"))]


@pytest.mark.parametrize("fn", [
    lambda x, m: np.sort(x, axis=0),
    lambda x, m: np.argsort(x, axis=1),
    lambda x, m: np.linalg.inv(m),
    lambda x, m: np.linalg.eigh(m)[1],
    lambda x, m: np.linalg.slogdet(m)[1],
    lambda x, m: m @ x[0, :4],
    lambda x, m: (m + 1j) @ (m[0] - 1j),
], ids=["sort", "argsort", "inv", "eigh", "slogdet", "batched matrix-vector",
        "batched complex"])
def test_per_lane_results_are_copied_by_cached_helpers(fn) -> None:
    """A sort of each lane, a factorisation of each matrix of a stack and
    each product of a batch write their results through
    runtime.argsort_into and copy_into, not ``out[i] = array``; the values
    are NumPy's."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 5))
    m = rng.standard_normal((3, 4, 4))
    m = m @ m.transpose(0, 2, 1) + 4 * np.eye(4)
    f = jitaic.jit(fn, callbacks=False)
    got, want = f(x, m), fn(x, m)
    assert got.dtype == want.dtype and np.allclose(got, want, rtol=1e-10, atol=1e-12)
    assert _arrays_assigned_into_subscripts(f.lower(x, m).source()) == []
