"""Every row of the op table, every case: jitaic against NumPy, reference against numba.

One jitted function per row is shared by all the tests of that row, so each
(row, case) costs one numba compile however many tests use it.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, copy_tree, numpy_result, seed_of
from op_table import ROWS, Case, OpRow, make_args

import jitaic
from jitaic.ir.ops import OPS
from jitaic.ir.verifier import verify
from jitaic.lower import compile as _compile  # noqa: F401  (registers every lowering)
from jitaic.lower.kernels import LOWERINGS, SCALAR_RULES

PARAMS = [pytest.param(r, c, id=f"{r.name}-{c.id}") for r in ROWS for c in r.cases]

# Ops only the AST frontend produces (structured control flow); the trace
# frontend never emits them, so the op table cannot reach them. They are
# tested by hand-built graphs in test_ir.py.
NOT_REACHABLE_BY_TRACING = {
    "cond": "data-dependent if: AST frontend",
    "while_loop": "data-dependent while: AST frontend",
    "for_loop": "loops over traced bounds: AST frontend",
    "tape_new": "tapes exist only in gradients of while loops (test_autodiff_control_flow)",
    "tape_push": "tapes exist only in gradients of while loops (test_autodiff_control_flow)",
    "positive": "np.positive is exercised, but simplify removes it (+x -> x) before lowering",
    "broadcast_like": "only gradients of sums over run-time lengths (test_dynamic_extents)",
}

_NUMBA: dict[str, jitaic.JitFunction] = {}
_REFERENCE: dict[str, jitaic.JitFunction] = {}


def numba_jitted(row: OpRow):
    if row.name not in _NUMBA:
        _NUMBA[row.name] = jitaic.jit(row.fn)
    return _NUMBA[row.name]


def reference_jitted(row: OpRow):
    # A separate JitFunction, so no specialisation compiled for numba is reused.
    if row.name not in _REFERENCE:
        _REFERENCE[row.name] = jitaic.jit(row.fn)
    return _REFERENCE[row.name]


def args_for(row: OpRow, case: Case) -> tuple[np.ndarray, ...]:
    return make_args(row, case, np.random.default_rng(seed_of(row.name, case.id)))


@pytest.mark.parametrize("row, case", PARAMS)
def test_matches_numpy(row: OpRow, case: Case) -> None:
    args = args_for(row, case)
    saved = copy_tree(args)
    want = numpy_result(row.fn, *args)
    got = numba_jitted(row)(*args)
    assert_same(got, want, tol=row.tol, values=row.check_values)
    for before, after in zip(saved, args):
        np.testing.assert_array_equal(after, before, err_msg="an input was modified")


@pytest.mark.parametrize("row, case", PARAMS)
def test_reference_matches_numba(row: OpRow, case: Case) -> None:
    args = args_for(row, case)
    compiled = numba_jitted(row)(*args)
    with jitaic.config.override(backend="reference"):
        reference = reference_jitted(row)(*args)
    assert_same(compiled, reference, tol=row.tol, values=row.check_values)


def _op_names(graph) -> set[str]:
    return {node.op.name for node in graph.walk()}


def test_every_op_is_exercised_by_the_table() -> None:
    """The table reaches every op of ops.OPS (the coverage test of STYLE 1.2)."""
    seen: set[str] = set()
    broken = []
    for row in ROWS:
        for case in row.cases:
            try:
                graph = numba_jitted(row).lower(*args_for(row, case)).ir
            except Exception as exc:  # reported by the row's own tests
                broken.append(f"{row.name}[{case.id}]: {type(exc).__name__}")
                continue
            seen |= _op_names(graph)
    missing = set(OPS) - seen - set(NOT_REACHABLE_BY_TRACING)
    assert not missing, (f"ops no op-table row exercises: {sorted(missing)}"
                         f" (rows that failed to lower: {broken})")


# The rows whose NumPy calls go to NumPy through the callback, on purpose.
CALLED_BACK = {"argsort": "np.packbits, and np.random's global stream"}


def test_the_table_is_native_but_for_its_callback_examples() -> None:
    """The table runs with callbacks on (the default): a NumPy function whose
    lowering broke would quietly be NumPy's again. Only the named rows call back."""
    calling_back = set()
    for row in ROWS:
        for case in row.cases:
            try:
                graph = numba_jitted(row).lower(*args_for(row, case)).ir
            except Exception:  # reported by the row's own tests
                continue
            if "numpy_call" in _op_names(graph):
                calling_back.add(row.name)
    assert calling_back == set(CALLED_BACK)


def test_every_op_has_a_lowering() -> None:
    """A scalar rule (elementwise ops, fused into loop nests) or a lowering."""
    missing = [name for name, op in OPS.items()
               if op not in SCALAR_RULES and op not in LOWERINGS]
    assert not missing, f"ops without a lowering rule: {missing}"


def test_exclusions_are_real_ops() -> None:
    assert set(NOT_REACHABLE_BY_TRACING) <= set(OPS)


def test_table_graphs_verify() -> None:
    """The graph behind every row's first case passes the IR verifier."""
    from jitaic.ir.verifier import VerificationError

    failures = []
    for row in ROWS:
        try:
            graph = numba_jitted(row).lower(*args_for(row, row.cases[0])).ir
        except Exception:  # reported by the row's own tests
            continue
        try:
            verify(graph)
        except VerificationError as exc:
            failures.append(f"{row.name}: {exc}")
    assert not failures, "\n".join(failures)


def test_table_is_within_its_compile_budget() -> None:
    """Each (row, case) costs one numba compile; keep CI fast (see op_table.py)."""
    from op_table import n_compiles

    assert n_compiles() <= 510  # ~0.3 s each on the 2-core CI machine


def test_ndarray_constructor_and_isinstance_inside_traced_code() -> None:
    def f(x):
        out = np.ndarray(x.shape, dtype=np.float32)
        out[:] = x * 2
        return out, isinstance(x, np.ndarray), isinstance(x.sum(), np.ndarray)

    x = np.arange(4.0)
    got, want = jitaic.jit(f)(x), f(x)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[0].dtype == np.float32 and got[1:] == want[1:] == (True, False)
    with pytest.raises(jitaic.UnsupportedError, match="buffer="):
        jitaic.jit(lambda x: np.ndarray((2,), buffer=np.zeros(2)) + x)(x[:2])


def test_cumulative_scans_are_numpys_bit_for_bit(rng) -> None:
    """NumPy adds (multiplies) sequentially in the result dtype: float32 stays
    float32, int32 accumulates in int64, dtype= converts before the scan."""
    x = rng.standard_normal((50, 40)).astype(np.float32)
    k = rng.integers(-9, 9, (6, 5)).astype(np.int32)

    def scans(x, k):
        return (np.cumsum(x, axis=0), np.cumsum(x), x.cumsum(axis=1), np.cumsum(k, axis=1),
                np.cumsum(k, dtype=np.float32), np.cumprod(k, axis=0))

    for got, want in zip(jitaic.jit(scans)(x, k), scans(x, k), strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_diff_rejects_what_numpy_rejects() -> None:
    with pytest.raises(ValueError, match="order must be non-negative"):
        jitaic.jit(lambda x: np.diff(x, n=-1))(np.ones(3))
    with pytest.raises(ValueError, match="at least one dimensional"):
        jitaic.jit(lambda x: np.diff(x))(np.array(1.0))


def test_sorting_orders_ties_stably_and_nan_last(rng) -> None:
    """argsort is NumPy's kind="stable" (its default introsort may order ties
    differently); NaN sorts last and makes np.median NaN; integer medians are
    float64; ndarray.sort sorts in place."""
    x = np.array([[3.0, np.nan, 1.0, -0.0, 0.0, 1.0], [2.0, 2.0, -1.0, 5.0, 0.5, 2.0]])
    k = rng.integers(0, 3, (4, 9)).astype(np.int32)   # many ties

    def sorting(x, k):
        y = k.copy()
        y.sort(axis=0)
        return (np.argsort(x, axis=1, kind="stable"), np.sort(x, axis=1), np.median(x, axis=1),
                np.argsort(k, kind="stable"), np.median(k, axis=0), y)

    want = sorting(x, k)
    for got, expected in zip(jitaic.jit(sorting)(x, k), want, strict=True):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    assert np.isnan(want[2][0])


def test_nan_aware_means_keep_float32(rng) -> None:
    """np.nanmean divides in the input's float dtype, as NumPy's."""
    x = rng.standard_normal((5, 7)).astype(np.float32)
    x[1, 2] = np.nan
    f = jitaic.jit(lambda v: (np.nanmean(v, axis=0), np.nanmean(v, axis=1, keepdims=True)))
    for got, want in zip(f(x), (np.nanmean(x, axis=0), np.nanmean(x, axis=1, keepdims=True)),
                         strict=True):
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-6)
