"""Run-time index checks in generated code: made once where they repeat."""

from __future__ import annotations

import numpy as np
import pytest

import jitaic
from jitaic.lower.kernels.loops import drop_repeated_index_checks

CHECK = ["if np.uint64(i + 5) >= np.uint64(2 * 5):",
         "    raise rt.IndexOutOfBounds(i, 0, 5, ' at f.py:3')"]


def _indented(lines: list[str], depth: int) -> list[str]:
    return ["    " * depth + line for line in lines]


def test_a_check_repeated_in_its_block_or_a_nested_one_goes() -> None:
    lines = [*CHECK, "a = x[i]", *CHECK, "for j in range(3):",
             *_indented([*CHECK, "b = x[i]"], 1), "c = a"]
    assert drop_repeated_index_checks(lines) == [
        *CHECK, "a = x[i]", "for j in range(3):", "    b = x[i]", "c = a"]


def test_a_check_stays_after_its_index_changes_or_its_block_ends() -> None:
    reassigned = [*CHECK, "i = i + 1", *CHECK]
    assert drop_repeated_index_checks(reassigned) == reassigned
    augmented = [*CHECK, "i += 1", *CHECK]
    assert drop_repeated_index_checks(augmented) == augmented
    unpacked = [*CHECK, "k, i = i, k", *CHECK]
    assert drop_repeated_index_checks(unpacked) == unpacked
    sibling = ["if c:", *_indented(CHECK, 1), "else:", *_indented(CHECK, 1)]
    assert drop_repeated_index_checks(sibling) == sibling


def test_a_check_before_a_loop_does_not_cover_a_loop_that_changes_the_index() -> None:
    """The loop's next iteration sees the index its body assigns (last)."""
    lines = [*CHECK, "for j in range(3):", *_indented([*CHECK, "i = x[j]"], 1)]
    assert drop_repeated_index_checks(lines) == lines
    over_i = [*CHECK, "for i in range(9):", *_indented(CHECK, 1)]
    assert drop_repeated_index_checks(over_i) == over_i


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
