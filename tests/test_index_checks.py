"""Run-time index checks in generated code: made once where they repeat."""

from __future__ import annotations

import numpy as np
import pytest

import jitaic
from jitaic.lower import loop_ir
from jitaic.lower.loop_ir import Assign, If, IndexCheck, Line, Loop


def check() -> IndexCheck:
    return IndexCheck("i", 5, 0, " at f.py:3")


def unrepeated(body: list) -> list[str]:
    """The rendered lines of ``body`` after the pass."""
    fn = loop_ir.Function("f", [], body, fresh=str)
    loop_ir.drop_repeated_index_checks(fn)
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
