"""Run-time extents inside loop bodies: x[:i], A[i, :j], y[k:n - k].

The programs of ``control_programs.py`` ("slices whose length is known at run
time only") check results against NumPy in both frontends. Here: the IR keeps
one loop and marks the run-time dimension, NumPy's errors where run-time
lengths disagree, the constructs that still need static extents, and
gradients through such loops against finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, finite_difference

import jitaic


def doubled_prefix_sums(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = (x[:i + 1] * 2.0).sum()
    return out


def test_loop_stays_a_loop_and_the_ir_marks_the_run_time_dimension() -> None:
    x = np.arange(1.0, 200.0)  # integers: every summation order gives the same sums
    f = jitaic.jit(doubled_prefix_sums, mode="ast")
    np.testing.assert_array_equal(f(x), 2.0 * np.cumsum(x))
    lowered = f.lower(x)
    text = lowered.as_text()
    assert text.count("for_loop") == 1 and "f64[?]" in text, text
    report = lowered.fusion_report()  # the multiply fuses into the sum over x[:i + 1]
    assert "kernel over [?]: multiply, reduce_sum" in report, report


def sum_prefixes(x):
    out = np.zeros(x.shape[0] + 1)
    for i in range(x.shape[0] + 1):
        out[i] = np.sum(x[:i])  # the empty prefix sums to 0
    return out


@pytest.mark.parametrize("n", [1, 7, 8, 9, 130, 1000])
def test_prefix_sums_are_numpys_own_sums(n: int) -> None:
    """The same pairwise order as np.sum on each prefix: equal bit for bit."""
    x = np.random.default_rng(n).normal(size=n)
    expected = np.array([np.sum(x[:i]) for i in range(n + 1)])
    np.testing.assert_array_equal(jitaic.jit(sum_prefixes, mode="ast")(x), expected)


def mismatched_add(x, y):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += (x[:i] * y[:i + 1]).sum()
    return total


def mismatched_store(x):
    out = np.zeros_like(x)
    for i in range(1, x.shape[0]):
        out[:i] = x[:i + 1]
    return out


def mismatched_dot(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += x[:i] @ x[1:i + 2]
    return total


def max_of_prefix(x):
    best = np.zeros_like(x)
    for i in range(x.shape[0]):
        best[i] = x[:i].max()  # empty at i == 0
    return best


@pytest.mark.parametrize("fn, args, message", [
    (mismatched_add, (np.ones(5), np.ones(5)),
     r"lengths known at run time differ \(\d+ vs \d+\) at test_dynamic_extents.py:\d+ "
     r"\(in mismatched_add\)"),
    (mismatched_store, (np.ones(5),),
     r"could not broadcast input array into the assigned region: lengths known at run "
     r"time differ \(\d+ vs \d+\) at test_dynamic_extents.py:\d+ \(in mismatched_store\)"),
    (mismatched_dot, (np.ones(5),), "contracted dimension"),
    (max_of_prefix, (np.ones(4),), "zero-size array to reduction operation maximum"),
])
def test_run_time_lengths_that_disagree_raise_numpys_error(fn, args, message) -> None:
    with pytest.raises(ValueError):  # NumPy refuses too
        fn(*args)
    with pytest.raises(ValueError, match=message):
        jitaic.jit(fn, mode="ast")(*args)


def reshape_prefix(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += x[:i].reshape(2, -1).sum()  # only length-1 axes may come and go
    return total


def inverse_of_prefix(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += np.linalg.inv(np.outer(x[:i], x[:i]) + np.eye(1)).sum()
    return total


@pytest.mark.parametrize("fn, construct", [
    (reshape_prefix, "a reshape other than adding or removing length-1 axes"),
    (inverse_of_prefix, "np.linalg.inv")])
def test_constructs_that_need_static_extents_are_named(fn, construct: str) -> None:
    with pytest.raises(jitaic.UnsupportedError) as info:
        jitaic.jit(fn, mode="ast")(np.ones(4))
    message = str(info.value)
    assert construct in message and "known at run time" in message, message
    assert "test_dynamic_extents.py:" in message, message


def substitution_loss(L, b):
    x = np.zeros_like(b)
    for i in range(b.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return (x * x).sum()


def window_statistics(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += x[:i].mean() * x[i:].max() + np.sum(np.flip(x[:i]) * x[-i:])
    return total


def covariance_loss(data):
    m = data.shape[1]
    cov = np.zeros((m, m))
    for i in range(m):  # a product of run-time length, assigned to a row and a column
        cov[i:m, i] = cov[i, i:m] = data[:, i] @ data[:, i:m] / (data.shape[0] - 1.0)
    return (np.sin(cov) * cov).sum()


@pytest.mark.parametrize("fn, make, argnums", [
    (substitution_loss, lambda r: (np.tril(r.random((5, 5))) + 5 * np.eye(5), r.random(5)),
     (0, 1)),
    (window_statistics, lambda r: (r.normal(size=7),), 0),
    (covariance_loss, lambda r: (r.normal(size=(6, 4)),), 0),
])
def test_gradients_through_run_time_slices(fn, make, argnums) -> None:
    args = make(np.random.default_rng(3))
    grads = jitaic.grad(fn, argnums=argnums)(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for k, g in zip(argnums if isinstance(argnums, tuple) else (argnums,), grads,
                    strict=True):
        np.testing.assert_allclose(g, finite_difference(fn, args, k), rtol=1e-6, atol=1e-8)


def flattened_prefixes(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        head = x[:i]
        total += (np.ravel(head) * 2.0).sum() + np.outer(head, x[i:]).sum()
        total += head.ravel()[-1]
    return total


def test_ravel_and_outer_of_run_time_lengths() -> None:
    x = np.arange(1.0, 9.0)  # integers: any summation order gives the same sums
    f = jitaic.jit(flattened_prefixes, mode="ast")
    assert f(x) == flattened_prefixes(x)
    assert f.lower(x).as_text().count("for_loop") == 1


def test_store_regions_follow_pythons_slice_rules() -> None:
    """rt.slice_range (first index and count of a RANGE store region) against
    Python's own range slicing, negative bounds and steps included."""
    from jitaic.lower.runtime import slice_range

    for size in range(6):
        for start in range(-8, 8):
            for stop in range(-8, 8):
                for step in (1, 2, 3, -1, -2, -3):
                    expected = range(size)[start:stop:step]
                    first, count = slice_range(start, stop, step, size)
                    assert count == len(expected), (size, start, stop, step)
                    assert not count or first == expected[0], (size, start, stop, step)


@pytest.mark.parametrize("n", [5, 1003, 40_000])
@pytest.mark.parametrize("density", [0.0, 0.001, 0.02, 0.5, 1.0])
def test_boolean_selections_of_any_density_match_numpy(n, density, rng) -> None:
    """x[mask] walks a sparse mask 8 entries at a time (zero words skipped)
    and a dense one entry by entry; the selection's sum reads it in place.
    Every path gives NumPy's values, order and pairwise sums bit for bit."""
    def select(x, rows, u, v):
        mask = np.logical_and(u <= v, v < u + density)  # a traced mask
        picked = x[mask]
        return picked, picked.sum(), picked.mean() if picked.size else 0.0, rows[mask[:4]]

    v = rng.random(n)
    args = (rng.standard_normal(n), rng.standard_normal((4, 3)), np.zeros(n), v)
    f = jitaic.jit(select)
    for got, want in zip(f(*args), select(*args), strict=True):
        np.testing.assert_array_equal(got, want)
    source = f.lower(*args).source()
    assert "rt.mask_words(" in source and "rt.pairwise_sum(" in source


def test_size_and_len_of_a_run_time_length() -> None:
    """x.size of a selection is a traced count (Python code once got None,
    which `if x.size:` read as 0); len() needs an int and says so."""
    def mean_or_zero(x, u):
        picked = x[u > 0.5]
        return picked.mean() if picked.size else 0.0

    x, u = np.arange(10.0), np.linspace(0.0, 1.0, 10)
    f = jitaic.jit(mean_or_zero)
    assert f(x, u) == mean_or_zero(x, u) == 7.0
    assert f(x, u * 0.0) == mean_or_zero(x, u * 0.0) == 0.0
    with pytest.raises(jitaic.UnsupportedError, match=r"len\(\) of an array whose length.*x.size"):
        jitaic.jit(lambda x: len(x[x > 0]))(x)


def tail_stats(a, d):
    v = a[d:]
    total = 0
    for k in range(v.shape[0]):  # a for_loop with a run-time trip count
        total = total + v[k]
    return v.astype(np.int8) + v.shape[0], v.shape[0] == 0, total


@pytest.mark.parametrize("d", [2, 5])
def test_shape_of_a_run_time_length_is_a_traced_int(d) -> None:
    """NumPy's shape holds ints: a run-time length is a traced weak int64
    there (it was None, which range() refused and `n == 0` read as False)."""
    a = np.arange(5)
    got, want = jitaic.jit(tail_stats)(a, np.array(d)), tail_stats(a, d)
    assert got[0].dtype == want[0].dtype == np.int8
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1] and got[2] == want[2]


def compare_shapes(a, m, k):
    v, w = a[m], a[k:]
    same = v.shape == w.shape
    if v.shape != w.shape[:1] + ():
        w = v
    assert v.shape == v.shape, "a run-time length equals itself"
    return v + w, same, v.shape == (2,), (3,) + v.shape == (3, 2), a.shape == v.shape


@pytest.mark.parametrize("mode", ["auto", "ast"])
@pytest.mark.parametrize("m, k", [([True, False, True, False], 2), ([True] * 4, 1)])
def test_shapes_with_run_time_lengths_compare_when_the_code_runs(mode, m, k) -> None:
    """`v.shape == w.shape` was Python's bool() of a traced int (a
    ConcretizationError): it is a traced bool, true or false as NumPy's."""
    a, m = np.arange(4.0), np.array(m)
    got, want = jitaic.jit(compare_shapes, mode=mode)(a, m, k), compare_shapes(a, m, k)
    np.testing.assert_array_equal(got[0], want[0])
    assert [bool(g) for g in got[1:]] == list(want[1:])


def padded_selection(x, m, pad):
    y = x[m]
    out = np.zeros(y.shape[0] + pad)
    out[:y.shape[0]] = y
    return (out, np.concatenate([y, x[:2], y[::-1]]), np.full(len(y), 7, np.int8),
            np.full(len(y), -0.0 * x[0], np.float32))


@pytest.mark.parametrize("m, pad", [([True, False, True, True], 2), ([False] * 4, 0)])
def test_vectors_of_run_time_length_made_and_joined(m, pad) -> None:
    """np.zeros/np.full of a run-time length (a traced fill too: -0.0 kept)
    and np.concatenate of vectors with run-time lengths, as NumPy's."""
    x, m = np.arange(1.0, 5.0), np.array(m)
    got, want = jitaic.jit(padded_selection)(x, m, pad), padded_selection(x, m, pad)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        jitaic.jit(padded_selection)(x, m, -9)


def rows_made_and_joined(x, m, k):
    y, z = x[m], x[k:]  # (r, 3) and (4 - k, 3)
    n = y.shape[0]
    table = np.zeros((n, 3))
    table[:, 0] = y[:, 1]
    filled, square = np.full((2, n), z.sum()), np.empty((n, n), np.int32)
    square[...] = 4
    return (table, filled, square, np.zeros_like(y[:, :2]), np.concatenate([y, z, x[:1]]),
            np.concatenate([y, y * 2], axis=1), np.vstack([y, x[:2]]),
            np.concatenate([y.T, z.T], axis=1))


@pytest.mark.parametrize("mode", ["trace", "ast"])
@pytest.mark.parametrize("m, k", [([True, False, True, True], 2), ([False] * 4, 4)])
def test_arrays_of_run_time_shape_made_and_joined(mode, m, k) -> None:
    """np.zeros/np.full/np.empty/np.zeros_like with run-time lengths in any
    axis, and np.concatenate along or across them, as NumPy's."""
    x, m = np.arange(12.0).reshape(4, 3), np.array(m)
    got, want = jitaic.jit(rows_made_and_joined, mode=mode)(x, m, k), rows_made_and_joined(x, m, k)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def concatenate_prefix(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += (np.concatenate([x[:i, None], x[:i, None]]) * x[i]).sum()  # 2-D
    return total


def test_concatenate_of_run_time_windows_in_a_loop() -> None:
    """It was refused (2-D arrays of run-time length); the loop stays one loop."""
    x = np.arange(1.0, 6.0)
    f = jitaic.jit(concatenate_prefix, mode="ast")
    assert f(x) == concatenate_prefix(x)
    assert f.lower(x).as_text().count("for_loop") == 1


def sorted_selections(x, m, rows, k):
    y, z = x[m], rows[k:, :]
    return (np.sort(y), np.argsort(-y, kind="stable"), np.sort(z, axis=0), np.sort(z, axis=1),
            y[np.argsort(y)][::-1])


def median_of_growing_prefix(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += np.sort(x[:i])[(i - 1) // 2] * i
    return total


@pytest.mark.parametrize("mode", ["trace", "ast"])
@pytest.mark.parametrize("m, k", [([1, 0, 1, 1, 0, 1], 1), ([0] * 6, 3)])
def test_sorts_of_run_time_lengths(mode, m, k) -> None:
    """np.sort/np.argsort of x[mask] and of a run-time window were refused."""
    x, rows, m = np.array([3.0, 1.0, 2.0, 5.0, 4.0, 0.5]), np.arange(6.0)[::-1].reshape(3, 2), \
        np.array(m, bool)
    got = jitaic.jit(sorted_selections, mode=mode)(x, m, rows, k)
    for g, w in zip(got, sorted_selections(x, m, rows, k), strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
    assert jitaic.jit(median_of_growing_prefix, mode=mode)(x) == median_of_growing_prefix(x)


def rolling_median(x):
    out = np.zeros(x.shape[0], np.result_type(x.dtype, np.float64))
    for i in range(x.shape[0]):
        out[i] = np.median(x[max(i - 3, 0):i + 1])
    return out


def medians_of_selections(x, m):
    return np.median(x[m]), np.median(x[m][:, None] * np.ones(3), axis=0, keepdims=True)


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value")
@pytest.mark.parametrize("x", [
    [3.0, 1.0, 2.0, 5.0, 4.0, 0.5, 7.0], [3.0, np.nan, 2.0, 5.0, 4.0, 0.5, 7.0],
    np.arange(7), np.array([3, 1, 2, 5, 4, 0.5, 7], np.float32), [3 + 1j, 1, 2, 5j, 4, 0.5, 7],
], ids=["f64", "nan", "int", "f32", "complex"])
def test_median_of_run_time_lengths(x) -> None:
    """np.median of a run-time window or selection (refused before): the
    mean of the middle one or two in sorted order, NaN with a NaN or none."""
    x = np.asarray(x)
    got, want = jitaic.jit(rolling_median, mode="ast")(x), rolling_median(x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    for m in (x.real > 1.5, x.real > 2.5, x.real > 100):
        for g, w in zip(jitaic.jit(medians_of_selections)(x, m), medians_of_selections(x, m),
                        strict=True):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_array_equal(g, w)


def rolling_quantiles(x):
    out = np.zeros((x.shape[0], 3))
    for i in range(x.shape[0]):
        out[i] = np.quantile(x[max(i - 4, 0):i + 1], [0.1, 0.5, 0.9])
    return out


def quantiles_of_selections(x, m):
    return (np.percentile(x[m], 37.5), np.quantile(x[m], 0.25),
            np.percentile(x[m][:, None] * np.ones(2), [5, 95], axis=0))


@pytest.mark.filterwarnings("ignore:invalid value")
@pytest.mark.parametrize("x", [
    [0.3, -1.2, 2.5, 0.0, 1.1, -0.4, 3.3, 0.7, -2.0],
    np.array([0.3, -1.2, 2.5, 0.0, 1.1, -0.4, 3.3, 0.7, -2.0], np.float32), np.arange(9),
    [1.0, np.nan, 3.0, 4.0, 2.0, 7.0, 0.0, 5.0, 6.0],
    [1.0, np.inf, 3.0, -np.inf, 2.0, 7.0, 0.0, 5.0, 6.0],
], ids=["f64", "f32", "int", "nan", "inf"])
def test_quantiles_of_run_time_lengths(x) -> None:
    """np.quantile/np.percentile ("linear") of run-time windows and
    selections: NumPy's virtual indices and _lerp, computed when the code
    runs; an empty one is NumPy's IndexError."""
    x = np.asarray(x)
    got, want = jitaic.jit(rolling_quantiles, mode="ast")(x), rolling_quantiles(x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    for m in (x > 0.5, x > -10):
        for g, w in zip(jitaic.jit(quantiles_of_selections)(x, m),
                        quantiles_of_selections(x, m), strict=True):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_array_equal(g, w)
    with pytest.raises(IndexError, match="index -1 is out of bounds for axis 0 with size 0"):
        jitaic.jit(quantiles_of_selections)(x, np.zeros(x.shape, bool))


@pytest.mark.parametrize("fn", [
    lambda x, m: (np.sort(x[m])[::-1].cumsum() ** 2).sum(),  # gather of a run-time length
    lambda x, m: (x[m][::-1][1:] ** 3).sum(),                 # a slice of a slice
    lambda x, m: (x[m][x[m] > 1.5] ** 2).sum(),               # a mask of a mask
], ids=["sort", "slice_of_slice", "mask_of_mask"])
@pytest.mark.parametrize("m", [[1, 0, 1, 1, 0, 1], [0] * 6])
def test_gradients_through_selections_of_run_time_length(fn, m) -> None:
    """They were UnsupportedErrors (a CompileError for the sort): the
    cotangent's zeros take the operand's run-time lengths."""
    args = (np.array([3.0, 1.0, 2.0, 5.0, 4.0, 0.5]), np.array(m, bool))
    np.testing.assert_allclose(jitaic.grad(fn)(*args), finite_difference(fn, args, 0),
                               atol=1e-6)


def beside(x, m, k):
    return np.concatenate([x[m], x[k:]], axis=1)


def test_run_time_lengths_across_the_concatenation_axis_must_match() -> None:
    """NumPy's ValueError when they differ, even where one is 1 (which a slice
    assignment would stretch)."""
    x, m = np.arange(12.0).reshape(4, 3), np.array([True, False, True, True])
    f = jitaic.jit(beside)
    np.testing.assert_array_equal(f(x, m, 1), beside(x, m, 1))
    for k, rows in ((2, m), (3, np.array([True, True, False, False]))):
        with pytest.raises(ValueError, match="must match exactly"):
            beside(x, rows, k)
        with pytest.raises(ValueError, match="must match exactly"):
            f(x, rows, k)


def column_of_selection(x, m, extra):
    y = x[m]
    return y.reshape(y.shape[0] + extra, 1) * 2


def test_reshape_to_a_traced_length() -> None:
    """y.reshape(y.shape[0], 1) of a run-time length (the shape holds a
    traced int); another length is NumPy's ValueError when it runs."""
    x, m = np.arange(5.0), np.arange(5) > 1
    f = jitaic.jit(column_of_selection)
    np.testing.assert_array_equal(f(x, m, 0), column_of_selection(x, m, 0))
    with pytest.raises(ValueError):
        column_of_selection(x, m, 1)
    with pytest.raises(ValueError, match="cannot reshape"):
        f(x, m, 1)


def add_own_tail(a, d):
    a += a[d:]
    return a


def test_an_in_place_op_with_a_run_time_length_operand_is_checked_when_it_runs():
    a = np.arange(3.0).reshape(3, 1)
    f = jitaic.jit(add_own_tail)
    np.testing.assert_array_equal(f(a.copy(), np.int64(0)), add_own_tail(a.copy(), np.int64(0)))
    with pytest.raises(ValueError):  # NumPy: operands could not be broadcast together
        add_own_tail(a.copy(), np.int64(1))
    with pytest.raises(ValueError, match="lengths known at run time differ"):
        f(a.copy(), np.int64(1))


def add_windows(x, j, k):
    return x[j[0]:] + x[k[0]:] * 2.0


def add_window_to_all(x, k):
    return (np.sin(x[k[0]:]) + x).sum()


def store_window(a, b, k):
    a[b[0]:] = a[k[0]:]
    return a


def scatter_window(x, k):
    x[np.array([0, 2, 1])] = x[k[0]:] * 2.0
    return x


def store_window_where_positive(x, k):
    y = x.copy()
    y[x > 0] = x[k[0]:]
    return y


@pytest.mark.parametrize("fn, args", [
    (add_windows, (np.arange(3.0), np.array([0]), np.array([2]))),
    (add_windows, (np.arange(3.0), np.array([3]), np.array([2]))),  # 1 into 0
    (add_window_to_all, (np.arange(3.0), np.array([-1]))),
    (store_window, (np.arange(4.0), np.array([1]), np.array([3]))),
    (store_window, (np.arange(1.0), np.array([1]), np.array([0]))),  # 1 into 0
    (scatter_window, (np.arange(3.0), np.array([2]))),
    (store_window_where_positive, (np.arange(3.0), np.array([2]))),
])
def test_a_run_time_length_of_1_stretches_as_numpys(fn, args) -> None:
    """NumPy broadcasts a window whose length turns out to be 1 at run time
    against any length: in arithmetic (either operand), stores, scatters and
    masked stores."""
    want = fn(*[a.copy() for a in args])
    np.testing.assert_array_equal(jitaic.jit(fn, mode="ast")(*args), want)


def unread_min(a, k):
    a[k[0]:].min(keepdims=True)  # nothing reads it: NumPy still raises when empty
    return a


def unread_argmax(a, k):
    np.argmax(a[k[0]:])
    return a


@pytest.mark.parametrize("fn", [unread_min, unread_argmax])
def test_an_unread_reduction_of_an_empty_window_still_raises(fn) -> None:
    """Dead code elimination keeps what may raise (the fuzzer found the
    error gone with the unread min)."""
    a = np.arange(2.0)
    np.testing.assert_array_equal(jitaic.jit(fn)(a, np.array([1])), a)
    with pytest.raises(ValueError) as numpy_error:
        fn(a, np.array([2]))
    with pytest.raises(ValueError, match=str(numpy_error.value)):
        jitaic.jit(fn)(a, np.array([2]))


def store_window_into_a_column(a, k, j):
    a[k[0]:] = np.arange(5.0)[j[0]:]  # a run-time length into the column's 1
    return a


@pytest.mark.parametrize("shape, k, j", [((2, 1), 0, 4), ((2, 1), 1, 4), ((2, 3), 0, 4)])
def test_a_run_time_length_stored_into_an_axis_of_1(shape, k, j) -> None:
    """Traced as (None,) into (None, 1): a store NumPy makes when the
    window's length is 1 (the fuzzer found a ShapeError while tracing)."""
    args = (np.zeros(shape), np.array([k]), np.array([j]))
    want = store_window_into_a_column(*[a.copy() for a in args])
    np.testing.assert_array_equal(jitaic.jit(store_window_into_a_column)(*args), want)
    with pytest.raises(ValueError):  # NumPy: (2,) into (2, 1)
        store_window_into_a_column(np.zeros(shape), np.array([0]), np.array([3]))
    with pytest.raises(ValueError, match="lengths known at run time differ"):
        jitaic.jit(store_window_into_a_column)(np.zeros(shape), np.array([0]), np.array([3]))


@pytest.mark.parametrize("j, k", [(1, 0), (0, 1)])
def test_run_time_lengths_other_than_1_still_raise(j, k) -> None:
    args = (np.arange(3.0), np.array([j]), np.array([k]))
    with pytest.raises(ValueError):  # NumPy: (2,) and (3,) do not broadcast
        add_windows(*args)
    with pytest.raises(ValueError, match="lengths known at run time differ"):
        jitaic.jit(add_windows, mode="ast")(*args)


def stretched_windows(x, n):
    j, k = n[0], n[1]
    z = x[j:] * 2.0 + x[k:]
    return z + x[j:], np.sin(z), z.shape[0]


def stretched_windows_loss(x, n):
    j, k = n[0], n[1]
    z = np.where(x[j:] > 0.5, x[k:] ** 2, np.cos(x[j:])) * np.hypot(x[k:], 1.0)
    y = x * 1.0
    y[k:] = z
    return (y * y).sum()


@pytest.mark.parametrize("j, k", [(3, 1), (1, 3), (3, 4), (4, 3), (2, 2), (4, 4), (2, 3)])
def test_any_run_time_length_of_1_stretches(j, k) -> None:
    """NumPy broadcasts a length of 1 against any other, whichever operand
    has it (the first included, and against 0); lengths both other than 1
    raise; gradients sum over what was stretched."""
    x, n = np.arange(4.0) * 0.3 + 0.1, np.array([j, k])
    for mode in ("trace", "ast"):
        check_as_numpy(jitaic.jit(stretched_windows, mode=mode), stretched_windows, x, n)
    check_gradient_as_finite_differences(stretched_windows_loss, x, n)


def broadcast_windows(x, n):
    y = x[n[0]:]
    a = np.broadcast_to(x[n[1]:], (3,))            # run-time length to a static one
    b = np.broadcast_to(x[:1], y.shape) + y         # static to a run-time length
    c = np.broadcast_to(y[:, None], (y.shape[0], 2))
    d, e = np.broadcast_arrays(y, x[n[1]:])         # run-time lengths together
    return a * 2.0, b, c.copy(), d * 1.0, e * 1.0


def broadcast_windows_loss(x, n):
    y = x[n[0]:]
    b = np.broadcast_to(y[:, None], (y.shape[0], 3)) * np.arange(3.0)
    return (np.sin(b) ** 2).sum() + np.broadcast_arrays(y, x[n[1]:])[1].sum() * 0.5


@pytest.mark.parametrize("j, k", [(1, 1), (3, 2), (1, 3), (2, 2), (0, 4), (4, 3)])
def test_broadcast_to_and_broadcast_arrays_of_run_time_lengths(j, k) -> None:
    x, n = np.arange(4.0) * 0.3 + 0.2, np.array([j, k])
    check_as_numpy(jitaic.jit(broadcast_windows), broadcast_windows, x, n)
    check_gradient_as_finite_differences(broadcast_windows_loss, x, n)


def broadcast_window_to_three(x, n):
    return np.broadcast_to(x[n[0]:], (3,)) * 2.0


def test_a_run_time_length_np_broadcast_to_cannot_stretch_fails_as_numpy_words_it() -> None:
    x, n = np.arange(5.0), np.array([3])
    with pytest.raises(ValueError, match="operands could not be broadcast together with "
                                         "remapped shapes"):
        broadcast_window_to_three(x, n)
    with pytest.raises(ValueError) as raised:
        jitaic.jit(broadcast_window_to_three)(x, n)
    assert str(raised.value).startswith(
        "operands could not be broadcast together with remapped shapes: lengths known at "
        "run time differ (2 vs 3) at test_dynamic_extents.py:")
    assert "broadcast_like" not in str(raised.value)


def check_gradient_as_finite_differences(loss, x, n) -> None:
    """jit(grad(loss))(x, n) is loss's central differences in x, or raises
    where loss does."""
    grad = jitaic.jit(jitaic.grad(loss))
    try:
        loss(x, n)
    except ValueError:
        with pytest.raises(ValueError, match="lengths known at run time differ"):
            grad(x, n)
        return
    np.testing.assert_allclose(grad(x, n), finite_difference(loss, (x, n), 0), atol=1e-7)


def check_as_numpy(jitted, fn, *args) -> None:
    """jitted(*args) gives NumPy's result, or raises where NumPy does."""
    try:
        want = fn(*args)
    except ValueError:
        with pytest.raises(ValueError, match="lengths known at run time differ"):
            jitted(*args)
        return
    assert_same(jitted(*args), want)


def pivots_and_running_sums(A):
    A = A.copy()
    pivots = np.zeros(A.shape[0], np.int64)
    for k in range(A.shape[0]):
        pivots[k] = k + np.argmax(np.abs(A[k:, k]))  # partial pivoting's search
        A[k:, k] = np.cumsum(A[k:, k])
        A[k, k:] = np.minimum.accumulate(A[k, k:])
    return pivots, A


def test_argmax_and_scans_of_windows_whose_length_the_loop_index_sets() -> None:
    A = np.random.default_rng(3).standard_normal((5, 5))
    got, want = jitaic.jit(pivots_and_running_sums, mode="ast")(A), pivots_and_running_sums(A)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-15)


def argmin_of_tail(x, k):
    return np.argmin(x[k[0]:, :], axis=0), np.cumprod(x[:, k[0]:], axis=1)


@pytest.mark.parametrize("k", [0, 3, 9])
def test_argmin_and_cumprod_of_run_time_windows_as_numpys(k) -> None:
    """An empty window: the scan is empty, argmin raises NumPy's ValueError."""
    x, at = np.arange(20.0).reshape(4, 5) % 7, np.array([k])
    f = jitaic.jit(argmin_of_tail, mode="ast")
    if k < 4:
        for g, w in zip(f(x, at), argmin_of_tail(x, at), strict=True):
            np.testing.assert_array_equal(g, w)
        return
    with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
        argmin_of_tail(x, at)
    with pytest.raises(ValueError, match=r"attempt to get argmin of an empty sequence at "
                       r"test_dynamic_extents\.py:\d+"):
        f(x, at)


def mirrored_update(y, a):
    y = y.copy()
    for k in range(1, y.shape[0]):
        y[:k] += a[k] * np.flip(y[:k])  # a Levinson recursion's update
        t = y[:k] * 2.0
        y[:k] = t  # the value is as long as the region it goes into
    return y


def mirrored_sum(x, j, k):
    return x[:j[0]] + np.flip(x[:k[0]])


def test_lengths_equal_by_construction_are_not_checked(rng) -> None:
    """np.flip(y[:k]) is as long as y[:k], and so is an elementwise result of
    either: jitaic proves it from the graph and emits no length check and no
    stretch of a length of 1 (loops that vectorise, less code to compile)."""
    args = (rng.random(6), rng.random(6))
    f = jitaic.jit(mirrored_update)
    np.testing.assert_array_equal(f(*args), mirrored_update(*args))
    source = f.lower(*args).source()
    assert "LengthsDiffer" not in source and "!= 1 else 0" not in source


def test_windows_of_other_bounds_are_still_checked() -> None:
    """x[:j] against np.flip(x[:k]): other bounds, no proof; NumPy's error
    where the lengths differ, its values where they agree or one is 1."""
    x = np.arange(5.0)
    f = jitaic.jit(mirrored_sum)
    for j, k in [(3, 3), (3, 1), (0, 0)]:
        np.testing.assert_array_equal(f(x, np.array([j]), np.array([k])),
                                      mirrored_sum(x, np.array([j]), np.array([k])))
    with pytest.raises(ValueError):
        mirrored_sum(x, np.array([3]), np.array([2]))
    with pytest.raises(ValueError, match="lengths known at run time differ"):
        f(x, np.array([3]), np.array([2]))
