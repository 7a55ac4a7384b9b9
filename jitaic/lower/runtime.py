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
