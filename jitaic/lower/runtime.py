"""Helpers that generated code calls (compiled by numba like the code itself)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def int_matmul(a, b):
    """Integer matrix product (BLAS has no integer kernels); wraps like NumPy."""
    m, k = a.shape
    n = b.shape[1]
    out = np.zeros((m, n), a.dtype)
    for i in range(m):
        for p in range(k):
            aip = a[i, p]
            for j in range(n):
                out[i, j] += aip * b[p, j]
    return out


@numba.njit(cache=True)
def tape_push(tape, row, count):
    """Store ``row`` at ``tape[count]``, doubling the tape first when it is full."""
    if count >= tape.shape[0]:
        bigger = np.empty((2 * tape.shape[0],) + tape.shape[1:], tape.dtype)
        bigger[: tape.shape[0]] = tape
        tape = bigger
    tape[count] = row
    return tape
