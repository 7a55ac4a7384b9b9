"""Run-time index checks in generated code: made once where they repeat."""

from __future__ import annotations

import re

import numpy as np
import pytest

import jitaic
from jitaic.lower import loop_ir, loop_passes
from jitaic.lower.loop_ir import Assign, If, IndexCheck, Line, Loop


def check() -> IndexCheck:
    return IndexCheck("i", 5, 0, " at f.py:3")


def unrepeated(body: list) -> list[str]:
    """The rendered lines of ``body`` after the pass."""
    fn = loop_ir.Function("f", [], body, fresh=str)
    loop_passes.drop_repeated_index_checks(fn)
    return loop_ir.render_block(fn.body, "")


def rendered(body: list) -> list[str]:
    return loop_ir.render_block(body, "")


def test_a_check_repeated_in_its_block_or_a_nested_one_goes() -> None:
    body = [check(), Assign("a", "x[i]"), check(),
            Loop("j", 3, [check(), Assign("b", "x[i]")]), Assign("c", "a")]
    assert unrepeated(body) == rendered(
        [check(), Assign("a", "x[i]"), Loop("j", 3, [Assign("b", "x[i]")]), Assign("c", "a")])


@pytest.mark.parametrize("change", [Assign("i", "i + 1"), Line("i += 1"),
                                    Assign("k, i", "i, k"), Line("k, i = i, k")])
def test_a_check_stays_after_its_index_changes(change) -> None:
    body = [check(), change, check()]
    assert unrepeated(body) == rendered(body)


def test_a_check_in_one_branch_does_not_cover_the_other() -> None:
    body = [If("c", [check()], [check()])]
    assert unrepeated(body) == rendered(body)
    ended = [If("c", [check()]), check()]  # the branch's check ended with it
    assert unrepeated(ended) == rendered(ended)


def test_a_check_before_a_loop_does_not_cover_a_loop_that_changes_the_index() -> None:
    """The loop's next iteration sees the index its body assigns (last)."""
    body = [check(), Loop("j", 3, [check(), Assign("i", "x[j]")])]
    assert unrepeated(body) == rendered(body)
    over_i = [check(), Loop("i", 9, [check()])]
    assert unrepeated(over_i) == rendered(over_i)


def products(x, y, n):
    total = 0.0
    for k in range(n):
        total += x[k] * y[k]  # two reads, one test: k against the same length
    return total


def test_repeated_tests_still_raise_numpys_error_at_the_line() -> None:
    x, y = np.arange(4.0), np.ones(4)
    f = jitaic.jit(products, mode="ast")
    assert f(x, y, 4) == products(x, y, 4)
    with pytest.raises(IndexError, match=r"index 4 is out of bounds for axis 0 with size 4"
                                         r" at test_index_checks\.py:\d+"):
        f(x, y, 5)
    assert f.lower(x, y, 5).source().count("raise rt.IndexOutOfBounds") == 1


def gather(a, b):
    return a[b]


def gather_after_slice(a, b, k):
    return a[:k][:, b]


def scatter(a, b, v):
    a[b] += v
    return a


@pytest.mark.parametrize("fn, args", [
    (gather, (np.zeros((0, 0)), np.array([0]))),
    (gather, (np.zeros((0, 0)), np.array([-1]))),
    (gather, (np.zeros((2, 0)), np.array([2]))),
    (gather, (np.zeros((2, 0)), np.array([1, -2]))),  # in bounds: an empty result
    (gather, (np.zeros((2, 0)), np.zeros(0, np.int64))),  # no index to check
    (gather_after_slice, (np.zeros((3, 4)), np.array([4]), 0)),  # empty at run time
    (gather_after_slice, (np.zeros((3, 4)), np.array([3]), 0)),
    (scatter, (np.zeros((0, 0)), np.array([0]), 1.0)),
    (scatter, (np.zeros((2, 0)), np.array([-3]), np.zeros((1, 0)))),
])
def test_indices_selecting_an_empty_region_are_checked_as_numpy_checks_them(fn, args):
    try:
        want = fn(*[np.copy(a) for a in args])
    except IndexError as error:
        with pytest.raises(IndexError, match=re.escape(str(error))):
            jitaic.jit(fn)(*args)
        return
    np.testing.assert_array_equal(jitaic.jit(fn)(*args), want)


def test_a_run_time_error_raised_while_another_is_handled_keeps_its_type_and_message():
    """Python normalises an exception raised inside an ``except`` block by
    calling its class on it: the run-time error classes give it back."""
    f = jitaic.jit(gather)
    try:
        raise KeyError("handled")
    except KeyError:
        with pytest.raises(IndexError, match=r"^index 5 is out of bounds for axis 0 with "
                                             r"size 2 at test_index_checks\.py:\d+") as caught:
            f(np.zeros(2), np.array([5]))
    assert type(caught.value) is IndexError


def shifted_sums(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += x[i] - x[i - 1] + x[i - x.shape[0]] * x[2 * (i - 1) - (i - 1)]
    for i in range(x.shape[0] - 1, -1, -1):
        total += x[i]
    return total


def one_past_the_end(x):
    total = 0.0
    for i in range(x.shape[0] + 1):
        total += x[i]
    return total


def reversed_one_past_the_end(x):
    total = 0.0
    for i in range(x.shape[0], 0, -1):
        total += x[i - 1] * x[-i] + x[i]
    return total


def test_indices_that_loop_bounds_keep_in_range_are_not_checked() -> None:
    """ir.int_ranges: the loop index of range(1, n), i - 1, i - n and a
    descending range are within an axis of n: no check, and no normalisation
    of a negative index where the index cannot be negative. Bounds are
    intervals: 2 * (i - 1) - (i - 1) may be anything in [-6, 12] for them."""
    x = np.arange(1.0, 9.0)
    f = jitaic.jit(shifted_sums, mode="ast")
    assert f(x) == shifted_sums(x)
    source = f.lower(x).source()
    assert source.count("raise rt.IndexOutOfBounds") == 1, source  # 2 * (i - 1) - (i - 1)


def shifted_rows(a):
    total = 0.0
    for i in range(1, a.shape[0]):
        total += (a[i] * a[i - 1]).sum() + a[i - a.shape[0]].sum() + a[i - 1:i + 1].sum()
    return total


def test_rows_and_windows_that_loop_bounds_keep_in_range_are_not_checked() -> None:
    a = np.arange(1.0, 25.0).reshape(6, 4)
    f = jitaic.jit(shifted_rows, mode="ast")
    assert f(a) == shifted_rows(a)
    source = f.lower(a).source()
    assert "IndexOutOfBounds" not in source and "SliceOutside" not in source, source
    assert source.count(" < 0 else ") == 1, source  # a[i - n] counts from the end


@pytest.mark.parametrize("fn, line", [(one_past_the_end, "total += x[i]"),
                                      (reversed_one_past_the_end, "+ x[i]")])
def test_a_loop_index_that_can_leave_the_axis_is_checked(fn, line) -> None:
    x = np.arange(1.0, 9.0)
    with pytest.raises(IndexError) as numpys:
        fn(x)
    with pytest.raises(IndexError) as ours:
        jitaic.jit(fn, mode="ast")(x)
    assert str(ours.value).startswith(str(numpys.value)), (ours.value, numpys.value)
    assert "test_index_checks.py:" in str(ours.value)
    assert jitaic.jit(fn, mode="ast").lower(x).source().count("raise rt.IndexOutOfBounds") == 1


def unsigned_before_the_start(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i.astype(np.uint8) - np.uint8(1)]  # 0 - 1 wraps around to 255
    return total


def test_bounds_of_an_index_that_wraps_around_in_its_dtype_are_unknown() -> None:
    x = np.arange(1.0, 9.0)
    f = jitaic.jit(unsigned_before_the_start, mode="ast")
    with pytest.raises(IndexError, match=r"^index 255 is out of bounds for axis 0 with size 8 "
                                         r"at test_index_checks\.py:\d+"):
        f(x)
