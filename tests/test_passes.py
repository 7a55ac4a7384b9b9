"""The graph passes (jitaic/passes/) and their driver, on traced graphs.

For each pass: the structure before and after (op counts), the ``changed``
flag, and equal results by the reference interpreter before and after.

Every rule of ``simplify.RULES`` and ``simplify.REASSOCIATION_RULES`` is checked
for soundness: small traced programs that trigger it (and near misses that must
not), evaluated by the reference interpreter before and after the pipeline on inputs full of IEEE
corner cases (signed zeros, infinities, NaN, subnormals, the largest finite
values), and compared bit for bit. A rule added to the table without cases
here fails ``test_every_rule_has_a_soundness_case``.

Nothing here compiles with numba except the few tests that compare a
rewritten program with NumPy itself (``jitaic.jit``).
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import logging
import os
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import jitaic
from jitaic import config
from jitaic.errors import SourceLoc
from jitaic.ir import ops
from jitaic.ir.graph import Graph, Value, make_node
from jitaic.ir.interpreter import evaluate
from jitaic.ir.types import TensorType
from jitaic.ir.verifier import VerificationError, verify
from jitaic.passes import rewrite
from jitaic.passes.cleanup import eliminate_common_subexpressions, eliminate_dead_code
from jitaic.passes.fold import MAX_FOLDED_ELEMENTS, fold_constants
from jitaic.passes.pipeline import MAX_ROUNDS, PASS_SECONDS, PIPELINE, optimize
from jitaic.passes.simplify import REASSOCIATION_RULES, RULES, simplify
from jitaic.tracer import control_flow, loops
from jitaic.tracer.trace import trace

# The reference interpreter runs these tests, numba a fixed sample of them and
# those marked numba (conftest.py: the test pyramid).
TIER = "reference"

FLOATS = (np.float64, np.float32)
INTS = (np.int32, np.int64)
SHAPE = (4, 6)



# ---------------------------------------------------------------- helpers


def traced(fn: Callable, *args: object) -> Graph:
    """The unoptimized graph of ``fn(*args)`` (what jitaic.api traces)."""
    names = list(inspect.signature(fn).parameters)[:len(args)]
    graph = trace(fn, args, {}, names, [False] * len(args)).graph
    verify(graph)
    return graph


def op_counts(graph: Graph) -> Counter[str]:
    return Counter(node.op.name for node in graph.walk())


def run(graph: Graph, *args: object) -> list[np.ndarray]:
    """Results, then argument updates (by parameter index), by the interpreter."""
    results, updates = evaluate(graph, *args)
    return [*results, *(updates[i] for i in sorted(updates))]


def assert_identical(got: object, want: object, where: str = "") -> None:
    """Same dtype, shape and bits: NaN at the same places, zeros of the same sign."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape} != {want.shape}"
    np.testing.assert_array_equal(got, want, err_msg=where)
    if want.dtype.kind == "f":
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]),
                                      err_msg=f"{where}: signs of zero differ")


def assert_same_results(before: Graph, after: Graph, *args: object, exact: bool = True,
                        where: str = "") -> None:
    """The interpreter gives the same results (and argument updates) for both graphs."""
    assert [(v.shape, v.dtype) for v in after.results] == \
        [(v.shape, v.dtype) for v in before.results], f"{where}: result types changed"
    assert sorted(after.updates) == sorted(before.updates)
    want, got = run(before, *args), run(after, *args)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if exact:
            assert_identical(g, w, f"{where} output {i}")
        else:
            rtol = 1e-5 if w.dtype == np.float32 else 1e-12
            np.testing.assert_allclose(g, w, rtol=rtol, err_msg=f"{where} output {i}")


def special_array(rng: np.random.Generator, shape=SHAPE, dtype=np.float64) -> np.ndarray:
    """Random values of every magnitude plus the IEEE corner cases of ``dtype``."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "f":
        fi = np.finfo(dtype)
        specials = [-0.0, 0.0, np.inf, -np.inf, np.nan, fi.smallest_subnormal,
                    -fi.smallest_subnormal, fi.tiny, fi.max, -fi.max, 1.0, -1.0, 0.5, 3.0]
        top = float(np.log10(fi.max)) * 0.95
        m = max(n - len(specials), 0)
        rest = rng.standard_normal(m) * 10.0 ** rng.uniform(-top, top, m)
    elif dtype.kind in "iu":
        ii = np.iinfo(dtype)
        specials = [ii.min, ii.max, 0, 1, ii.max - 1, ii.min + 1]
        if dtype.kind == "i":
            specials += [-1, -2]
        rest = rng.integers(ii.min, ii.max, max(n - len(specials), 0), endpoint=True)
    else:
        specials, rest = [True, False], rng.random(max(n - 2, 0)) < 0.5
    specials = rng.permutation(np.array(specials, dtype=dtype))[:n]  # all, if they fit
    values = np.concatenate([specials, np.asarray(rest).astype(dtype)])
    return rng.permutation(values).reshape(shape)


def finite_array(rng: np.random.Generator, shape, dtype=np.float64) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------- fold_constants


def fold_program(x):
    c = np.array([1.0, -2.0, 0.5]) * 3 + 1  # constants only: folds to one constant
    return x * c


def test_fold_constants_folds_constant_subtrees(rng) -> None:
    x = special_array(rng, (8, 3))
    before = traced(fold_program, x)
    after, changed = fold_constants(before)
    assert changed
    assert op_counts(before)["multiply"] == 2 and op_counts(before)["add"] == 1
    assert op_counts(after)["multiply"] == 1 and op_counts(after)["add"] == 0
    (product,) = [n for n in after.nodes if n.op is ops.multiply]
    folded = product.inputs[1].producer
    assert folded.op is ops.constant
    assert_identical(folded.attrs["value"], np.array([1.0, -2.0, 0.5]) * 3 + 1, "folded")
    assert not folded.attrs["value"].flags.writeable
    assert fold_constants(after) == (after, False)
    assert_same_results(before, after, x)


def big_constant_program(x):
    return x + np.array([0.5] * (MAX_FOLDED_ELEMENTS + 1)) * 2


def test_fold_constants_leaves_large_results_to_run_time(rng) -> None:
    x = special_array(rng, (MAX_FOLDED_ELEMENTS + 1,))
    before = traced(big_constant_program, x)
    after, changed = fold_constants(before)
    assert not changed and after is before
    assert op_counts(optimize(before))["multiply"] == 1


def weak_scalar_fold_program(x):
    return x + np.array([3.0, 1.1, 7.3, 0.3], np.float32) * 1.0000001


def test_fold_constants_keeps_numpy_weak_scalar_semantics() -> None:
    """float32 array * Python float computes in float32 (NEP 50); folding must
    give the value NumPy gives, not the float64 product rounded to float32."""
    x = np.zeros(4, np.float32)
    after = optimize(traced(weak_scalar_fold_program, x))
    (folded,) = [n for n in after.nodes if n.op is ops.constant]
    want = np.array([3.0, 1.1, 7.3, 0.3], np.float32) * 1.0000001
    assert_identical(folded.attrs["value"], want, "folded float32 * weak float")


# ---------------------------------------------------------------- simplify


def simplify_program(x, y):
    return -(-x) * 1 + (y / 4) - 0 + x ** 2  # noqa: B002


def test_simplify_removes_identities(rng) -> None:
    x, y = special_array(rng), special_array(rng)
    before = traced(simplify_program, x, y)
    after, changed = simplify(before)
    assert changed
    live = optimize(before)
    assert op_counts(before) == Counter({"negative": 2, "multiply": 1, "true_divide": 1,
                                         "add": 2, "subtract": 1, "power": 1, "constant": 4})
    # -(-x) * 1 -> x;  y / 4 -> y * 0.25;  - 0 -> gone;  x ** 2 -> x * x  # noqa: B002
    assert op_counts(live) == Counter({"multiply": 2, "add": 2, "constant": 1})
    assert_same_results(before, after, x, y)
    assert_same_results(before, live, x, y)
    assert simplify(live)[1] is False


# ---------------------------------------------------------------- CSE


def cse_program(x):
    a = np.exp(x) * 2
    b = np.exp(x) * 2
    return a + b, x.sum(axis=0), x.sum(axis=1)


def test_cse_merges_equal_nodes_only(rng) -> None:
    x = special_array(rng, (5, 5))
    before = traced(cse_program, x)
    after, changed = eliminate_common_subexpressions(before)
    assert changed
    assert op_counts(before)["exp"] == 2 and op_counts(after)["exp"] == 1
    assert op_counts(after)["multiply"] == 1
    assert op_counts(after)["reduce_sum"] == 2  # same input, different axes
    add = next(n for n in after.nodes if n.op is ops.add)
    assert add.inputs[0] is add.inputs[1]
    assert eliminate_common_subexpressions(after)[1] is False
    assert_same_results(before, after, x)


def cse_in_bodies(x, n):
    outer = np.exp(x)

    def body(i, acc):
        return (acc + np.exp(x) + np.sin(acc) * np.sin(acc),)  # exp(x) is outer's

    def positive(acc):
        return (np.cos(acc) * 2,)

    def negative(acc):
        return (np.cos(acc) * 3,)  # a sibling body's cos(acc) is not visible

    (acc,) = loops.for_loop(0, n[0], 1, body, [x])
    (picked,) = control_flow.cond(acc.sum() > 0, positive, negative, [acc])
    return outer + picked


def test_cse_reaches_bodies_and_keeps_their_values_inside() -> None:
    x, n = np.array([0.5, -1.0, 2.0]), np.array([3])
    before = traced(cse_in_bodies, x, n)
    after, changed = eliminate_common_subexpressions(before)
    assert changed
    assert op_counts(before)["exp"] == 2 and op_counts(after)["exp"] == 1
    assert op_counts(before)["sin"] == 2 and op_counts(after)["sin"] == 1
    assert op_counts(after)["cos"] == 2
    verify(after)
    assert eliminate_common_subexpressions(after)[1] is False
    assert_same_results(before, after, x, n)


def signed_zero_fills(x):
    return x + np.full(3, 0.0), x + np.full(3, -0.0)


def test_cse_keeps_fills_of_different_zero_sign_apart() -> None:
    """full(0.0) and full(-0.0) compare equal with == but are different values:
    -0.0 + 0.0 is +0.0 while -0.0 + -0.0 is -0.0 (no fill is merged now,
    but a constant of either is)."""
    x = np.full(3, -0.0)
    before = traced(signed_zero_fills, x)
    after, _ = eliminate_common_subexpressions(before)
    assert op_counts(after)["full"] == 2
    assert_same_results(before, after, x)


def two_zero_buffers(x):
    a = np.zeros(3)
    b = np.zeros(3)
    a[0] = x[0]
    b[1] = x[1]
    return a, b


def test_cse_keeps_filled_buffers_apart() -> None:
    """Two np.zeros of one shape are two buffers: merged, every store into one
    of them would copy it first; apart, each is written in place."""
    x = np.array([1.0, 2.0, 3.0])
    before = traced(two_zero_buffers, x)
    after, _ = eliminate_common_subexpressions(before)
    assert op_counts(after)["full"] == 2
    assert_same_results(before, after, x)


# ---------------------------------------------------------------- DCE


def dce_program(x, y):
    unused = np.exp(y) * 3  # noqa: F841
    t = x.T.T               # the tracer records the inner view twice
    y += 1                  # an argument update is live without being returned
    return t * 2


def test_dce_drops_unused_nodes_and_keeps_updates(rng) -> None:
    x, y = special_array(rng), special_array(rng)
    before = traced(dce_program, x, y)
    after, changed = eliminate_dead_code(before)
    assert changed
    assert op_counts(before)["exp"] == 1 and op_counts(after)["exp"] == 0
    assert op_counts(after)["transpose"] == op_counts(before)["transpose"] - 1 == 2
    assert op_counts(after)["add"] == 1 and 1 in after.updates
    assert eliminate_dead_code(after) == (after, False)
    assert_same_results(before, after, x, y)


def unread_gathers(x, i):
    x[x > 0] * 2  # unread: gathered by x's own mask, it cannot raise  # noqa: B018
    x[x[:i[0]] > 0]  # unread, but the mask's length is i: NumPy raises IndexError  # noqa: B018
    return x.sum()


def test_dce_keeps_unread_gathers_only_where_they_may_raise(rng) -> None:
    before = traced(unread_gathers, special_array(rng, (4,)), np.array([4]))
    after, _ = eliminate_dead_code(before)
    (kept,) = [n for n in after.walk() if n.op is ops.compress]
    assert op_counts(before)["compress"] == 2 and kept.inputs[1].shape == (None,)
    for i in (4, 3):
        x = special_array(rng, (4,))
        with pytest.raises(IndexError) if i != 4 else contextlib.nullcontext(), \
                np.errstate(all="ignore"):  # (x * 2 overflows at the largest floats)
            unread_gathers(x.copy(), np.array([i]))
        with pytest.raises(IndexError) if i != 4 else contextlib.nullcontext():
            jitaic.jit(unread_gathers)(x.copy(), np.array([i]))


# ---------------------------------------------------------------- rule soundness


@dataclass(frozen=True)
class Case:
    """A program that (``fires``) or that must not trigger a rule."""

    label: str
    build: Callable[..., Graph]  # arguments -> unoptimized graph
    make_args: Callable[[np.random.Generator, np.dtype], tuple]
    dtypes: tuple = FLOATS
    fires: bool | None = True  # None: either way, as long as the results agree
    exact: bool = True
    after: dict[str, int] | None = None  # op counts after the pipeline


def one_array(shape=SHAPE) -> Callable:
    return lambda rng, dtype: (special_array(rng, shape, dtype),)


def case(label: str, fn: Callable, dtypes=FLOATS, fires: bool | None = True, shape=SHAPE,
         args: Callable | None = None, exact: bool = True, after=None) -> Case:
    return Case(label, lambda *a: traced(fn, *a), args or one_array(shape), tuple(dtypes),
                fires, exact, after)


HERE = SourceLoc(__file__, 0, "handmade")


def handmade(op: ops.Op, attrs_of: Callable[[tuple], dict]) -> Callable[..., Graph]:
    """``op`` applied to the argument (for forms the tracer never records)."""

    def build(x: np.ndarray) -> Graph:
        p = Value(TensorType(x.shape, x.dtype), name="x")
        node = make_node(op, [p], attrs_of(x.shape), loc=HERE)
        exp = make_node(ops.negative, [node.output], loc=HERE)
        return Graph((p,), (node, exp), (exp.output,), name=f"handmade_{op.name}")

    return build


def weak_and_f32(rng, dtype) -> tuple:
    """A Python float (a weak float64 scalar) and a float32 array."""
    return 0.1, special_array(rng, SHAPE, np.float32)


def matmul_args(*shapes) -> Callable:
    return lambda rng, dtype: tuple(finite_array(rng, s, dtype) for s in shapes)


def transpose_cases() -> list[Case]:
    cases = [case("x.T.T", lambda x: x.T.T, FLOATS + INTS, after={"transpose": 0})]
    identity = (0, 1, 2)
    for p, q in itertools.product(itertools.permutations(range(3)), repeat=2):
        fires = p != identity and q != identity
        cases.append(case(f"transpose{p}.transpose{q}",
                          lambda x, p=p, q=q: np.transpose(np.transpose(x, p), q) + 1,
                          (np.float64,), fires, shape=(2, 3, 4)))
    cases.append(Case("transpose(x, identity)",
                      handmade(ops.transpose, lambda s: {"perm": (0, 1)}), one_array(),
                      FLOATS, True, after={"transpose": 0}))
    return cases


def _subtract_in_place(x):
    y = x * 1
    y[1:3] -= y[0]  # updates the view, then stores it back into y
    return y


def _store_rescaled(x):
    y = x * 1
    y[1:3] = y[1:3] * 1
    return y


def _store_shifted(x):
    y = x * 1
    y[1:3] = y[0:2]
    return y


def _store_own(x):
    y = x * 2
    y[1:3] = y[1:3]
    return y


def _store_at(x, where):
    y = x * 2
    y[where[0]] = y[where[0]]  # a run-time index: dyn_getitem, dyn_setitem
    return y


def _read_back(x):
    y = x * 1
    y[1:3] = x[0]
    return y[1:3] * 2 + y[0:2]


def _read_back_at(x, where):
    y = x * 1
    y[where[0]] = x[0] * 3
    return y[where[0]] + y


def _read_back_elsewhere(x):
    y = x * 1
    y[1:3] = x[0]
    return y[0:2]


def _store_twice(x):
    y = x * 1
    y[1:3] = x[0]
    y[1:3] = x[2:4]
    return y


def _store_twice_at(x, where):
    y = x * 1
    y[where[0]] = 0.0
    y[where[0]] = x[1]
    return y


def _store_twice_overlapping(x):
    y = x * 1
    y[1:4] = x[0]
    y[1:3] = x[2:4]
    return y


def _masked_update(x):
    y = x * 1
    m = x > 0
    y[m] = y[m] * 2 + x[::-1][m]
    return y


def _masked_fill(x):
    y = x * 1
    y[x > 0] = 7
    return y


def _masked_scale_by_a_sum(x):
    y = x * 1
    m = x > 0
    y[m] = y[m] * y[m].sum()
    return y


def _masked_reversal(x):
    y = x * 1
    m = x > 0
    y[m] = y[m][::-1]
    return y


def _clear_twice_at(x, where):
    y = x * 1
    y[where[0]] = 0.0
    y[where[0]] = 0.0  # a gradient clears an element's cotangent twice
    return y


def _store_value_twice_at(x, where):
    y = x * 1
    v = x[1] * 3
    y[where[0]] = v
    y[where[0]] = v
    return y


def _clear_then_negative_zero_at(x, where):
    y = x * 1
    y[where[0]] = 0.0
    y[where[0]] = -0.0
    return y


def _store_at_two_indices(x, where):
    y = x * 1
    y[where[0]] = 0.0
    y[where[0] + 1] = 0.0
    return y


def _add_into_each_row_twice(x):
    def body(i, acc):
        acc[i] = x[1]
        acc[i] = acc[i] + x[0]  # cannot raise (the store above checked i): overwritten
        acc[i] = acc[i] * 2
        return (acc,)
    return loops.for_loop(0, 4, 1, body, [x * 1])[0]


def _add_into_a_row_twice_at(x, where):
    y = x * 1
    y[where[0]] = y[where[0]] + x[0]  # the first store may raise: it stays
    y[where[0]] = y[where[0]] * 2
    return y


def _add_into_each_row_twice_reading_between(x):
    def body(i, acc):
        acc[i] = x[1]
        acc[i] = acc[i] + x[0]
        acc[i] = acc[i] * acc.sum()  # reads the array the second store made
        return (acc,)
    return loops.for_loop(0, 4, 1, body, [x * 1])[0]


def _an_index(rng, dtype) -> tuple:
    return special_array(rng, SHAPE, dtype), np.array([-2])


def shared_product(a, b, c):
    t = a @ b
    return t @ c, t + 1


def over_indices(term: Callable, start: int = 2, stop: int = 6, step: int = 1) -> Callable:
    """x carried through a for loop over range(start, stop, step) whose body
    adds term(i), a function of the loop index i (bounds the passes know)."""
    def fn(x):
        def body(i, acc):
            return (acc + term(i),)
        return loops.for_loop(start, stop, step, body, [x])[0]
    return fn


RULE_CASES: dict[str, list[Case]] = {
    "multiply_by_one": [
        case("x * 1", lambda x: x * 1, FLOATS + INTS, after={"multiply": 0}),
        case("1 * x", lambda x: 1 * x, FLOATS + INTS, after={"multiply": 0}),
        case("x * 1.0", lambda x: x * 1.0, FLOATS),
        case("x * True", lambda x: x * np.bool_(True), FLOATS + INTS),
        case("x * [1.0] (broadcast constant)", lambda x: x * np.array([1.0]), (np.float64,)),
        case("x * 1.0 (int x: becomes float)", lambda x: x * 1.0, INTS, fires=False),
        case("x32 * float64(1)", lambda x: x * np.float64(1.0), (np.float32,), fires=False),
        case("x[6] * ones[4,6] (constant broadcasts x)",
             lambda x: x * np.array([[1.0] * 6] * 4), (np.float64,), fires=False, shape=(6,)),
        case("x * -1", lambda x: x * -1, FLOATS, fires=False),
        case("x * np.ones(x.shape) (a filled array)",
             lambda x: x * np.ones(x.shape, x.dtype), FLOATS, after={"multiply": 0}),
        case("x * broadcast_to(np.ones(()), x.shape) (a gradient's seed)",
             lambda x: x * np.broadcast_to(np.ones((), x.dtype), x.shape), FLOATS,
             after={"multiply": 0}),
        case("x * np.full(x.shape, 2.0)", lambda x: x * np.full(x.shape, 2.0), FLOATS,
             fires=False),
        case("(weak a * float64(1)) + y32", lambda a, y: (a * np.float64(1.0)) + y,
             (np.float32,), fires=None, args=weak_and_f32),
    ],
    "divide_by_one": [
        case("x / 1", lambda x: x / 1, FLOATS, after={"true_divide": 0}),
        case("x / 1.0", lambda x: x / 1.0, FLOATS),
        case("int x / 1 (becomes float: not the identity)", lambda x: x / 1, INTS,
             fires=False),
        case("1 / x", lambda x: 1 / x, FLOATS, fires=False),
        case("(weak a / float64(1)) + y32", lambda a, y: (a / np.float64(1.0)) + y,
             (np.float32,), fires=None, args=weak_and_f32),
    ],
    "divide_by_power_of_two": [
        case("x / 4", lambda x: x / 4, FLOATS + INTS, after={"true_divide": 0}),
        case("int x / 1 (x * 1.0)", lambda x: x / 1, INTS,
             after={"true_divide": 0, "multiply": 1}),
        case("x / 0.5", lambda x: x / 0.5, FLOATS),
        case("x / -2", lambda x: x / -2, FLOATS),
        case("x / 2**-1022", lambda x: x / 2.0 ** -1022, (np.float64,)),
        case("x / 2**1023 (subnormal inverse)", lambda x: x / 2.0 ** 1023, (np.float64,)),
        case("x32 / float32(2**-126)", lambda x: x / np.float32(2.0 ** -126), (np.float32,)),
        case("x32 / float32(2**-130) (inverse overflows float32)",
             lambda x: x / np.float32(2.0 ** -130), (np.float32,), fires=None),
        case("x / 2**-1074 (inverse overflows)", lambda x: x / 2.0 ** -1074, (np.float64,),
             fires=False),
        case("x / 3", lambda x: x / 3, FLOATS, fires=False),
        case("x / 0", lambda x: x / 0, FLOATS, fires=False),
    ],
    "floor_divide_by_one": [
        case("i // 1", lambda x: x // 1, INTS, after={"floor_divide": 0}),
        case("x // 1.0 (a float: its floor)", lambda x: x // 1.0, FLOATS, fires=False),
        case("i // -1", lambda x: x // -1, INTS, fires=False),
    ],
    "subtract_zero": [
        case("x - 0", lambda x: x - 0, FLOATS + INTS, after={"subtract": 0}),
        case("x - 0.0", lambda x: x - 0.0, FLOATS),
        case("x - [0.0, 0.0, ...]", lambda x: x - np.array([0.0] * 6), (np.float64,)),
        case("x - (-0.0) (is x + 0.0)", lambda x: x - (-0.0), FLOATS, fires=None),
        case("x - np.full(x.shape, -0.0) (is x + 0.0)", lambda x: x - np.full(x.shape, -0.0),
             FLOATS, fires=False),
        case("x - np.zeros(x.shape)", lambda x: x - np.zeros(x.shape, x.dtype), FLOATS,
             after={"subtract": 0}),
        case("0 - x", lambda x: 0 - x, FLOATS, fires=False),
        case("(weak a - float64(0)) + y32", lambda a, y: (a - np.float64(0.0)) + y,
             (np.float32,), fires=None, args=weak_and_f32),
    ],
    "power_small_integer": [
        case("x ** 1", lambda x: x ** 1, FLOATS + INTS, after={"power": 0}),
        case("x ** 2", lambda x: x ** 2, FLOATS + INTS, after={"power": 0, "multiply": 1}),
        case("x ** 2.0", lambda x: x ** 2.0, FLOATS),
        case("x ** 3", lambda x: x ** 3, FLOATS, fires=False),
        case("int x ** 2.0 (becomes float)", lambda x: x ** 2.0, INTS, fires=False),
        case("x[3] ** [[2,2,2],[2,2,2]] (exponent broadcasts x)",
             lambda x: x ** np.array([[2.0] * 3] * 2), (np.float64,), fires=False,
             shape=(3,)),
        case("(weak a ** float64(1)) + y32", lambda a, y: (a ** np.float64(1.0)) + y,
             (np.float32,), fires=None, args=weak_and_f32),
        case("(weak a ** float64(2)) + y32", lambda a, y: (a ** np.float64(2.0)) + y,
             (np.float32,), fires=None, args=weak_and_f32),
    ],
    "where_with_a_constant_condition": [
        case("where(True, x, -x)", lambda x: np.where(True, x, -x), FLOATS + INTS,
             after={"where": 0}),
        case("where(False, 1.0, x)", lambda x: np.where(False, 1.0, x), FLOATS),
        case("where(x > 0, x, 0)", lambda x: np.where(x > 0, x, 0.0), FLOATS, fires=False),
        case("where(True, 0.0, s) (a Python float: made a constant of s's type)",
             lambda x: np.where(True, 0.0, x), FLOATS, shape=(), after={"where": 0}),
        case("where(False, 2, s) (an int chosen for a float s)",
             lambda x: np.where(False, x, 2), FLOATS, shape=()),
        case("where(True, s.sum(), x) (not a constant)",
             lambda x: np.where(True, x.sum(), x), FLOATS, fires=False),
    ],
    "bool_with_its_identity": [
        case("m & True", lambda x: (x > 0) & True, FLOATS + INTS, after={"bitwise_and": 0}),
        case("m | False", lambda x: (x > 0) | False, FLOATS + INTS, after={"bitwise_or": 0}),
        case("logical_and(m, True)", lambda x: np.logical_and(x > 0, True), FLOATS,
             after={"logical_and": 0}),
        case("logical_or(False, m)", lambda x: np.logical_or(False, x > 0), FLOATS),
        case("i & True (an integer i)", lambda x: x & True, INTS, fires=False),
        case("m & False", lambda x: (x > 0) & False, FLOATS, fires=False),
        case("m | True", lambda x: (x > 0) | True, FLOATS, fires=False),
    ],
    "comparison_with_itself": [
        case("i == i", lambda x: x == x, INTS, shape=(), after={"equal": 0}),
        case("i < i", lambda x: x < x, INTS, shape=()),
        case("i >= i", lambda x: x >= x, INTS, shape=()),
        case("i != i", lambda x: x != x, INTS, shape=()),
        case("x == x (float: NaN)", lambda x: x == x, FLOATS, shape=(), fires=False),
        case("a == a for an array (not a scalar)", lambda x: x == x, INTS, fires=False),
        case("i == i + 0", lambda x: x == x + 0 * x[()], INTS, shape=(), fires=None),
    ],
    "comparison_decided_by_bounds": [
        case("i < 2 for i in range(2, 6)", over_indices(lambda i: np.where(i < 2, 1.0, 0.5)),
             after={"less": 0}),
        case("i <= 5", over_indices(lambda i: np.where(i <= 5, 1.0, 0.5))),
        case("i > 1", over_indices(lambda i: np.where(i > 1, 1.0, 0.5))),
        case("i >= 6 for i in range(5, 1, -1)",
             over_indices(lambda i: np.where(i >= 6, 1.0, 0.5), 5, 1, -1)),
        case("i == 7", over_indices(lambda i: np.where(i == 7, 1.0, 0.5))),
        case("i != -1", over_indices(lambda i: np.where(i != -1, 1.0, 0.5))),
        case("i < 3 (true for some i)", over_indices(lambda i: np.where(i < 3, 1.0, 0.5)),
             fires=False),
        case("i == 4 (true for one i)", over_indices(lambda i: np.where(i == 4, 1.0, 0.5)),
             fires=False),
    ],
    "extreme_decided_by_bounds": [
        case("maximum(i, 2) for i in range(2, 6)",
             over_indices(lambda i: np.maximum(i, 2) * 0.5), after={"maximum": 0}),
        case("minimum(i, 5)", over_indices(lambda i: np.minimum(i, 5) * 0.5)),
        case("minimum(0, i)", over_indices(lambda i: np.minimum(0, i) * 0.5)),
        case("maximum(i, 3) (i is 2 once)", over_indices(lambda i: np.maximum(i, 3) * 0.5),
             fires=False),
    ],
    "idempotent_of_itself": [
        case("x & x", lambda x: x & x, INTS, after={"bitwise_and": 0}),
        case("x | x", lambda x: x | x, INTS),
        case("maximum(x, x)", lambda x: np.maximum(x, x), FLOATS + INTS),
        case("fmin(x, x) (NaN kept)", lambda x: np.fmin(x, x), FLOATS),
        case("x & -x", lambda x: x & -x, INTS, fires=False),
    ],
    "store_of_own_values": [
        case("y[1:3] = y[1:3]", _store_own, FLOATS + INTS, after={"setitem": 0}),
        case("y[1:3] -= y[0]", _subtract_in_place, FLOATS + INTS, fires=None,
             after={"setitem": 1}),
        case("y[1:3] = y[1:3] * 1", _store_rescaled, FLOATS, fires=None),
        case("y[1:3] = y[0:2]", _store_shifted, FLOATS + INTS, fires=False),
        case("y[i] = y[i] (run-time i)", _store_at, FLOATS + INTS, args=_an_index),
    ],
    "read_of_a_store": [
        case("y[1:3] = x[0]; y[1:3]", _read_back, FLOATS + INTS),
        case("y[i] = x[0] * 3; y[i] (run-time i)", _read_back_at, FLOATS + INTS,
             args=_an_index),
        case("y[1:3] = x[0]; y[0:2]", _read_back_elsewhere, FLOATS + INTS, fires=False),
    ],
    "store_over_a_store": [
        case("y[1:3] = x[0]; y[1:3] = x[2:4]", _store_twice, FLOATS + INTS,
             after={"setitem": 1}),
        case("y[i] = 0; y[i] = x[1] (run-time i: the first store may raise)",
             _store_twice_at, FLOATS + INTS, args=_an_index, fires=False),
        case("y[1:4] = x[0]; y[1:3] = x[2:4]", _store_twice_overlapping, FLOATS + INTS,
             fires=False),
    ],
    "store_over_an_unread_store": [
        case("acc[i] = x[1]; acc[i] = acc[i] + x[0]; acc[i] = acc[i] * 2",
             _add_into_each_row_twice, FLOATS + INTS, after={"dyn_setitem": 2}),
        case("y[i] = y[i] + x[0]; y[i] = y[i] * 2 (i unchecked before)", _add_into_a_row_twice_at,
             FLOATS + INTS, args=_an_index, fires=False),
        case("the array of the first store read between them",
             _add_into_each_row_twice_reading_between, FLOATS, fires=False),
    ],
    "store_repeated": [
        case("y[i] = 0; y[i] = 0 (run-time i)", _clear_twice_at, FLOATS + INTS,
             args=_an_index, after={"dyn_setitem": 1}),
        case("y[i] = v; y[i] = v (one value)", _store_value_twice_at, FLOATS + INTS,
             args=_an_index, after={"dyn_setitem": 1}),
        case("y[i] = 0.0; y[i] = -0.0 (other bits)", _clear_then_negative_zero_at, FLOATS,
             args=_an_index, fires=False),
        case("y[i] = 0; y[i + 1] = 0 (other elements)", _store_at_two_indices, FLOATS + INTS,
             args=_an_index, fires=False),
    ],
    "masked_update": [
        case("y[m] = y[m] * 2 + x[::-1][m]", _masked_update, FLOATS + INTS,
             after={"compress": 0, "mask_scatter": 0}),
        case("y[x > 0] = 7 (the tracer's where already)", _masked_fill, FLOATS + INTS,
             fires=None, after={"mask_scatter": 0}),
        case("y[m] = y[m] * y[m].sum() (a 0-d value of the gathered ones)",
             _masked_scale_by_a_sum, FLOATS, after={"compress": 1, "mask_scatter": 0}),
        case("y[m] = y[m][::-1] (not elementwise)", _masked_reversal, FLOATS + INTS,
             fires=False, after={"compress": 1, "mask_scatter": 1}),
    ],
    "double_negation": [
        case("-(-x)", lambda x: -(-x), FLOATS + INTS, after={"negative": 0}),  # noqa: B002
        case("-(-(-x))", lambda x: -(-(-x)), FLOATS + INTS, after={"negative": 1}),  # noqa: B002
        case("-(x - 1)", lambda x: -(x - 1), FLOATS, fires=False),
    ],
    "identity_shape_or_cast": [
        case("+x", lambda x: +x, FLOATS + INTS, after={"positive": 0}),
        case("np.positive(x) + 1", lambda x: np.positive(x) + 1, FLOATS + INTS),
        case("x.astype(x.dtype)", lambda x: x.astype(x.dtype), FLOATS + INTS,
             after={"astype": 0}),
        case("x.astype(float32)", lambda x: x.astype(np.float32) * 2, (np.float64,),
             fires=False),
        case("weak a.astype(float64) + y32", lambda a, y: a.astype(np.float64) + y,
             (np.float32,), fires=False, args=weak_and_f32),
        Case("reshape(x, x.shape)", handmade(ops.reshape, lambda s: {"shape": s}),
             one_array(), FLOATS + INTS, after={"reshape": 0}),
        Case("broadcast_to(x, x.shape)", handmade(ops.broadcast_to, lambda s: {"shape": s}),
             one_array(), FLOATS + INTS, after={"broadcast_to": 0}),
        case("broadcast_to(x[6], (4, 6))", lambda x: np.broadcast_to(x, (4, 6)) * 2,
             (np.float64,), fires=False, shape=(6,)),
    ],
    "broadcast_of_unit_reshape": [
        case("broadcast_to(x[6].reshape(1, 6), (4, 6))",
             lambda x: np.broadcast_to(x.reshape(1, 6), (4, 6)) * 2, FLOATS + INTS,
             after={"reshape": 0}, shape=(6,)),
        case("broadcast_to(x.sum().reshape(1), (5,))",
             lambda x: np.broadcast_to(x.sum().reshape(1), (5,)) * 2, FLOATS),
        case("broadcast_to(x[6].reshape(6, 1), (6, 4)) (not leading 1s)",
             lambda x: np.broadcast_to(x.reshape(6, 1), (6, 4)) * 2, FLOATS, fires=False,
             shape=(6,)),
    ],
    "reshape_of_reshape": [
        case("x.reshape(24).reshape(6, 4)", lambda x: x.reshape(24).reshape(6, 4),
             FLOATS + INTS, after={"reshape": 1}),
        case("x.reshape(24).reshape(2, 12).reshape(4, 6)",
             lambda x: x.reshape(24).reshape(2, 12).reshape(4, 6) + 1, FLOATS,
             after={"reshape": 0}),
        case("x.reshape(2, 3, 4).sum(0).reshape(12)",
             lambda x: x.reshape(2, 3, 4).sum(axis=0).reshape(12), FLOATS, fires=False),
        case("x[x > 0][:, None].reshape(-1) (a run-time length: it crashed the pass)",
             lambda x: x[x > 0][:, None].reshape(-1) * 2, FLOATS, fires=False, shape=(6,)),
    ],
    "transpose_of_transpose": transpose_cases(),
    "reassociate_matmul_chain": [
        Case("(a @ b) @ c, c a column", lambda a, b, c: traced(lambda a, b, c: (a @ b) @ c,
                                                                 a, b, c),
             matmul_args((8, 6), (6, 5), (5, 1)), FLOATS, exact=False, after={"matmul": 2}),
        Case("(a @ b) @ c, c wide: already the cheaper order",
             lambda a, b, c: traced(lambda a, b, c: (a @ b) @ c, a, b, c),
             matmul_args((2, 6), (6, 5), (5, 9)), FLOATS, fires=False),
        Case("(a @ b) @ v, v a vector", lambda a, b, v: traced(lambda a, b, v: (a @ b) @ v,
                                                                 a, b, v),
             matmul_args((8, 6), (6, 5), (5,)), FLOATS, exact=False),
        Case("t = a @ b used twice", lambda a, b, c: traced(shared_product, a, b, c),
             matmul_args((8, 6), (6, 5), (5, 1)), FLOATS, fires=False),
    ],
}

KNOWN_UNSOUND: dict[tuple[str, str], pytest.MarkDecorator] = {}

RULE_TABLES = [RULES, REASSOCIATION_RULES]
ALL_RULES = sorted({r.name for table in RULE_TABLES for rules in table.values() for r in rules})
CASES = [pytest.param(name, c, id=f"{name}:{c.label}",
                      marks=[KNOWN_UNSOUND[name, c.label]] if (name, c.label) in KNOWN_UNSOUND
                      else [])
         for name in ALL_RULES for c in RULE_CASES.get(name, [])]


def test_every_rule_has_a_soundness_case() -> None:
    for name in ALL_RULES:
        assert any(c.fires for c in RULE_CASES.get(name, [])), (
            f"simplify rule {name!r} has no case in RULE_CASES that triggers it; "
            f"add programs that do (and near misses that must not)")
    assert set(RULE_CASES) <= set(ALL_RULES), "RULE_CASES names a rule that is gone"
    labels = {(name, c.label) for name, cases in RULE_CASES.items() for c in cases}
    assert set(KNOWN_UNSOUND) <= labels, "KNOWN_UNSOUND names a case that is gone"


def test_every_rule_states_before_and_after() -> None:
    for rules in (rules for table in RULE_TABLES for rules in table.values()):
        for r in rules:
            assert "->" in (r.fn.__doc__ or ""), f"{r.name}: docstring 'before -> after'"


@pytest.mark.parametrize("rule_name,case", CASES)
def test_rule_is_sound(rule_name: str, case: Case, rng) -> None:
    for dtype in case.dtypes:
        where = f"{case.label} [{np.dtype(dtype).name}]"
        args = case.make_args(rng, np.dtype(dtype))
        before = case.build(*args)
        hits = rewrite.RULE_HITS[rule_name]
        with config.override(debug=1, checks=True):
            after = optimize(before)
        fired = rewrite.RULE_HITS[rule_name] - hits
        assert_same_results(before, after, *args, exact=case.exact, where=where)
        assert case.fires is None or (fired > 0) == case.fires, (
            f"{where}: {rule_name} fired {fired} times\n{before}\n{after}")
        if case.after is not None:
            counts = op_counts(after)
            assert {op: counts[op] for op in case.after} == case.after, f"{where}\n{after}"


def test_rule_hits_are_counted_only_under_debug(rng) -> None:
    graph = traced(lambda x: -(-x), special_array(rng))  # noqa: B002
    hits = rewrite.RULE_HITS["double_negation"]
    with config.override(debug=0):
        optimize(graph)
    assert rewrite.RULE_HITS["double_negation"] == hits
    with config.override(debug=1):
        optimize(graph)
    assert rewrite.RULE_HITS["double_negation"] == hits + 1


def test_divide_by_power_of_two_keeps_numpy_float32_results() -> None:
    """x32 / 2.0**140 divides by float32(inf) in NumPy (0 for finite x); the
    rewrite x * 2**-140 does not. x32 / 2.0**-130 divides by a float32
    subnormal; the rewrite multiplies by float32(2**130) = inf."""
    x = np.array([0.0, -0.0, 1e-45, 3.0, 1e30, -np.inf, np.nan], np.float32)
    for fn in (lambda x: x / 2.0 ** 140, lambda x: x / 2.0 ** -130):
        with np.errstate(all="ignore"):
            want = fn(x)
        assert_identical(jitaic.jit(fn)(x), want, "jit vs NumPy")


# ---------------------------------------------------------------- exactness


NOT_EXACT = [
    ("x + 0.0", lambda x: x + 0.0, "add"),
    ("0.0 + x", lambda x: 0.0 + x, "add"),
    ("x * 0", lambda x: x * 0, "multiply"),
    ("x * 0.0", lambda x: x * 0.0, "multiply"),
    ("x ** 0.5", lambda x: x ** 0.5, "power"),
    ("x ** 0", lambda x: x ** 0, "power"),
    ("x - x", lambda x: x - x, "subtract"),
    ("x / x", lambda x: x / x, "true_divide"),
    ("log(exp(x))", lambda x: np.log(np.exp(x)), "log"),
    ("x / 3 (not a power of two)", lambda x: x / 3, "true_divide"),
]


@pytest.mark.parametrize("label,fn,kept", NOT_EXACT, ids=[n[0] for n in NOT_EXACT])
def test_inexact_identities_are_not_applied(label, fn, kept, rng) -> None:
    for dtype in FLOATS:
        x = special_array(rng, SHAPE, dtype)
        before = traced(fn, x)
        after = optimize(before)
        assert op_counts(after)[kept] == op_counts(before)[kept] == 1, after
        assert "sqrt" not in op_counts(after)
        assert_same_results(before, after, x, where=label)


def test_adding_zero_is_kept_because_of_negative_zero() -> None:
    x = np.array([-0.0, 0.0, 1.0])
    (result,) = run(optimize(traced(lambda x: x + 0.0, x)), x)
    assert not np.signbit(result[0])


# ---------------------------------------------------------------- the driver


@pytest.fixture(autouse=True)
def _forget_timings_of_test_passes():
    """Passes defined here must not stay in the process-wide PASS_SECONDS."""
    yield
    for name in [n for n in PASS_SECONDS if n.startswith("test_passes_")]:
        del PASS_SECONDS[name]


def counting(pipeline, calls: list) -> list:
    """The pipeline with each pass recording (name, changed) in ``calls``."""

    def wrap(name, fn):
        def run_pass(graph):
            graph, changed = fn(graph)
            calls.append((name, changed))
            return graph, changed
        return run_pass

    return [(name, wrap(name, fn)) for name, fn in pipeline]


def two_round_program(x):
    # reshape_of_reshape leaves reshape(x, x.shape), which the next round removes
    return x.reshape(24).reshape(2, 12).reshape(4, 6) * 1 + 1


def test_optimize_runs_to_a_fixed_point(rng) -> None:
    x = special_array(rng)
    before = traced(two_round_program, x)
    calls: list = []
    after = optimize(before, counting(PIPELINE, calls))
    rounds = [calls[i:i + len(PIPELINE)] for i in range(0, len(calls), len(PIPELINE))]
    assert 2 <= len(rounds) < MAX_ROUNDS
    assert any(changed for _, changed in rounds[1])  # the second round still worked
    assert not any(changed for _, changed in rounds[-1])
    assert op_counts(after) == Counter({"constant": 1, "add": 1})
    for name, fn in PIPELINE:
        assert fn(after) == (after, False), name
    assert_same_results(before, after, x)


FIXED_POINT_PROGRAMS = [
    pytest.param(lambda x: x / np.int8(4), np.float32, (5,), id="x32 / int8(4)"),
    pytest.param(lambda x: x ** np.array([[2.0] * 3] * 2), np.float64, (3,),
                 id="x ** [[2,2,2],[2,2,2]]"),
    pytest.param(lambda x: np.exp(x - x.max()) / np.exp(x - x.max()).sum(), np.float64, (5,),
                 id="softmax"),
    pytest.param(lambda x: x / 4 + x * 1, np.float64, (5,), id="x / 4 + x * 1"),
]


@pytest.mark.parametrize("fn,dtype,shape", FIXED_POINT_PROGRAMS)
def test_no_pass_reports_a_change_on_an_optimized_graph(fn, dtype, shape, rng) -> None:
    """A pass that says `changed` without changing anything makes every compile
    run all MAX_ROUNDS rounds."""
    x = special_array(rng, shape, dtype)
    before = traced(fn, x)
    calls: list = []
    after = optimize(before, counting(PIPELINE, calls))
    assert len(calls) < MAX_ROUNDS * len(PIPELINE), f"no fixed point:\n{after}"
    for name, fn_ in PIPELINE:
        assert fn_(after)[1] is False, f"{name} reports a change on\n{after}"
    assert_same_results(before, after, x)


def test_optimize_stops_after_max_rounds() -> None:
    calls: list = []
    graph = traced(lambda x: x + 1, np.ones(3))
    optimize(graph, [("test_passes_always", lambda g: (calls.append(1), (g, True))[1])])
    assert len(calls) == MAX_ROUNDS


def test_pass_seconds_are_recorded_per_pass_name(rng) -> None:
    graph = traced(simplify_program, special_array(rng), special_array(rng))
    before = dict(PASS_SECONDS)
    optimize(graph)
    for name, _ in PIPELINE:
        assert PASS_SECONDS[name] > before.get(name, 0.0), name

    def slow(g):
        time.sleep(0.02)
        return g, False

    start = PASS_SECONDS["test_passes_slow"]
    optimize(graph, [("test_passes_slow", slow)])
    assert PASS_SECONDS["test_passes_slow"] - start >= 0.02


def test_dump_ir_after_a_named_pass(caplog, rng) -> None:
    graph = traced(cse_program, special_array(rng, (5, 5)))
    calls: list = []
    with caplog.at_level(logging.DEBUG, logger="jitaic"), config.override(dump_ir="after:cse"):
        optimize(graph, counting(PIPELINE, calls))
    dumps = [r.getMessage() for r in caplog.records if r.name == "jitaic"]
    assert {r.levelno for r in caplog.records} == {logging.DEBUG}
    rounds = len(calls) // len(PIPELINE)
    assert len(dumps) == rounds
    assert all(d.startswith("IR after cse:\n") for d in dumps)
    assert "def cse_program(" in dumps[0] and "exp" in dumps[0]
    assert dumps[0].count(" exp ") == 1  # after CSE: one exp left


def test_dump_ir_before_and_all(caplog, rng) -> None:
    graph = traced(lambda x: x * 1, special_array(rng))
    with caplog.at_level(logging.DEBUG, logger="jitaic"), \
            config.override(dump_ir="before:simplify, after:dce"):
        optimize(graph)
    messages = [r.getMessage().splitlines()[0] for r in caplog.records]
    assert set(messages) == {"IR before simplify:", "IR after dce:"}
    assert "multiply" in caplog.records[0].getMessage()
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="jitaic"), config.override(dump_ir="all"):
        optimize(graph)
    assert len(caplog.records) == 2 * len(PIPELINE) * 2  # two rounds, before and after


def test_no_dump_without_the_knob(caplog, rng) -> None:
    with caplog.at_level(logging.DEBUG, logger="jitaic"), config.override(dump_ir=""):
        optimize(traced(lambda x: x * 1, special_array(rng)))
    assert caplog.records == []


def test_the_environment_variable_sets_the_dump_knob(monkeypatch) -> None:
    monkeypatch.setenv("JITAIC_DUMP_IR", "after:cse")
    config.reload()
    try:
        assert config.get("dump_ir") == "after:cse"
    finally:
        monkeypatch.delenv("JITAIC_DUMP_IR")
        config.reload()


def test_debug_level_2_logs_each_pass_and_the_rules_that_fired(caplog, rng) -> None:
    f = jitaic.jit(lambda x: -(-x) * 1.0)  # noqa: B002
    with caplog.at_level(logging.DEBUG, logger="jitaic"), \
            config.override(debug=2, backend="reference"):
        f(special_array(rng))
    (passes,) = [r.getMessage() for r in caplog.records if "graph passes" in r.getMessage()]
    for name, _ in PIPELINE:
        assert re.search(rf"\b{name} [\d.]+ ms", passes), passes
    assert re.search(r"rules fired: .*double_negation x1", passes), passes
    assert "multiply_by_one x1" in passes
    log = f.specializations()[0].pass_log
    assert log.rule_hits["double_negation"] == 1 and set(log.seconds) == {n for n, _ in PIPELINE}


def test_an_exception_in_a_pass_is_tagged_with_its_name(rng) -> None:
    def explode(graph):
        time.sleep(0.01)
        raise RuntimeError("boom")

    graph = traced(lambda x: x + 1, special_array(rng))
    start = PASS_SECONDS["test_passes_explode"]
    with pytest.raises(RuntimeError, match="boom") as info:
        optimize(graph, [("fold_constants", fold_constants), ("test_passes_explode", explode)])
    notes = getattr(info.value, "__notes__", [])
    assert any("test_passes_explode" in n for n in notes), notes
    assert not any("fold_constants" in n for n in notes)
    assert PASS_SECONDS["test_passes_explode"] - start >= 0.01  # timed even when it raises


def drop_first_node(graph: Graph) -> tuple[Graph, bool]:
    """A broken pass: removes a node whose output is still used."""
    return Graph(graph.params, graph.nodes[1:], graph.results, name=graph.name,
                 updates=graph.updates), True


def test_checks_run_the_verifier_after_each_pass(rng) -> None:
    graph = traced(lambda x: np.exp(x) + 1, special_array(rng))
    broken = [("test_passes_broken", drop_first_node)]
    with config.override(checks=False):
        optimize(graph, broken)  # not verified: no error
    with config.override(checks=True), pytest.raises(VerificationError) as info:
        optimize(graph, broken)
    assert any("test_passes_broken" in n for n in getattr(info.value, "__notes__", []))


def test_checks_accept_the_default_pipeline(rng) -> None:
    graph = traced(simplify_program, special_array(rng), special_array(rng))
    with config.override(checks=True):
        verify(optimize(graph))


# ---------------------------------------------------------------- source locations


def loc_divide(x):
    return x / 4 + x ** 2


def loc_views(x):
    return x.reshape(24).reshape(6, 4).T.T * 1


def loc_transposes(x):
    return np.transpose(np.transpose(x, (1, 2, 0)), (1, 0, 2)) - 0


def loc_folded(x):
    return x * (np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]) * 2) + -(-x)  # noqa: B002


def loc_matmul(a, b, c):
    return (a @ b) @ c


def loc_mutation(x):
    x /= 2
    x[0] = x[1] ** 2
    return x


LOC_PROGRAMS = [
    (loc_divide, ((4, 6),)),
    (loc_views, ((4, 6),)),
    (loc_transposes, ((2, 3, 4),)),
    (loc_folded, ((4, 6),)),
    (loc_matmul, ((8, 6), (6, 5), (5, 1))),
    (loc_mutation, ((4, 6),)),
]


@pytest.mark.parametrize("fn,shapes", LOC_PROGRAMS, ids=[p[0].__name__ for p in LOC_PROGRAMS])
def test_rewritten_nodes_keep_source_locations(fn, shapes, rng) -> None:
    args = [finite_array(rng, s) for s in shapes]
    before = traced(fn, *args)
    lines = {n.loc.lineno for n in before.walk() if n.loc is not None}
    assert all(n.loc is not None for n in before.walk())
    assert {n.loc.filename for n in before.walk()} == {__file__}
    with config.override(debug=1):
        after = optimize(before)
    old_nodes = set(before.walk())
    new = [n for n in after.walk() if n not in old_nodes]
    assert new or fn is loc_mutation, f"{fn.__name__}: nothing was rewritten"
    for node in after.walk():
        assert node.loc is not None, f"{node.op.name} lost its location\n{after}"
        assert os.path.samefile(node.loc.filename, __file__)
        assert node.loc.lineno in lines, f"{node.op.name} at {node.loc}: not a source line"
    assert_same_results(before, after, *args, exact=fn is not loc_matmul)


def shared_through_identity(a, b, c):
    t = a @ b
    u = t * 1  # simplifies to t itself: t then has two uses
    return u @ c, u + 1


def shared_by_cse(a, b, c):
    return (a @ b) @ c, (a @ b) + 1  # CSE makes the two a @ b one


@pytest.mark.parametrize("fn", [shared_through_identity, shared_by_cse])
def test_reassociation_never_adds_a_matmul(fn, rng) -> None:
    """(A@B)@C -> A@(B@C) pays only when A@B has no other use; otherwise A@B
    is computed anyway and the rewrite adds B@C and A@(B@C) (8x6x5 + 6x5x1 +
    8x6x1 multiply-adds instead of 8x6x5 + 8x5x1 here)."""
    args = matmul_args((8, 6), (6, 5), (5, 1))(rng, np.float64)
    before = traced(fn, *args)
    after = optimize(before)
    assert op_counts(after)["matmul"] == 2, f"\n{after}"
    assert_same_results(before, after, *args, exact=False)


def test_folding_and_simplification_reach_loop_bodies() -> None:
    def f(x, n):
        acc = x * 0.0
        for _ in range(n):
            acc = acc + (x / 4 + (2.0 * 3.0)) * 1
        return acc

    x = np.arange(5.0)
    g = jitaic.jit(f, mode="ast")
    np.testing.assert_array_equal(g(x, 3), f(x, 3))
    ir = g.specializations()[0].ir
    body = ir[ir.index("for_loop"):]
    assert "true_divide" not in body and "multiply" in body  # x / 4 -> x * 0.25
    assert "constant[value=6." in body  # 2.0 * 3.0 folded inside the body


def test_dce_drops_loop_carried_values_nobody_reads() -> None:
    def doubling(x):
        n = 0  # counted, never used: the loop need not carry it
        m = 1.0  # read by nothing but itself
        while x.sum() < 100.0:
            x = x * 2.0
            n += 1
            m = m * 3.0
        return x

    x = np.arange(1.0, 4.0)
    f = jitaic.jit(doubling, mode="ast")
    np.testing.assert_array_equal(f(x), doubling(x))
    (line,) = [s for s in f.specializations()[0].ir.splitlines() if "= while_loop" in s]
    carried = line.split("= while_loop")[0].count(":")
    assert carried == 1, line  # x only
