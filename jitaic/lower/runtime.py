"""Helpers that generated code calls (compiled by numba like the code itself)."""

from __future__ import annotations

import ctypes
import sys

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




# Float sums and products of a fused kernel's row go through a buffer and these
# helpers: `reassoc` (and no other fast-math flag) lets LLVM keep several
# partial sums in vector registers, the way NumPy's pairwise sum reorders its
# additions; NaN, infinities and signed zeros keep their IEEE behaviour. The
# kernel itself stays strict, so its elementwise results match NumPy exactly.
@numba.njit(fastmath={"reassoc"}, cache=True)
def sum_reassoc(buf, n):
    """``buf[0] + ... + buf[n - 1]`` (n >= 1), in any association order."""
    s = buf[0]
    for j in range(1, n):
        s += buf[j]
    return s


@numba.njit(fastmath={"reassoc"}, cache=True)
def prod_reassoc(buf, n):
    """``buf[0] * ... * buf[n - 1]`` (n >= 1), in any association order."""
    p = buf[0]
    for j in range(1, n):
        p *= buf[j]
    return p


def _madvise():
    """libc's madvise through ctypes (numba calls ctypes functions natively), or
    None where transparent huge pages do not exist (not Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    fn.restype = ctypes.c_int
    return fn


_MADVISE = _madvise()
_MADV_HUGEPAGE = 14
_HUGE = 1 << 21
_HUGE_MIN_BYTES = 1 << 22  # as codegen.HUGE_PAGE_MIN_BYTES

if _MADVISE is None:
    @numba.njit(cache=True)
    def huge_pages(a):
        return a
else:
    # Not cached on disk: numba cannot cache a call through a ctypes pointer.
    @numba.njit
    def huge_pages(a):
        """Ask for 2 MiB pages over a fresh array's whole 2 MiB blocks (before
        anything touches them), as NumPy does for big arrays; a failed advice
        only costs speed."""
        start = (a.ctypes.data + _HUGE - 1) & ~(_HUGE - 1)
        end = (a.ctypes.data + a.nbytes) & ~(_HUGE - 1)
        if end > start:
            _MADVISE(start, end - start, _MADV_HUGEPAGE)
        return a


@numba.njit
def tape_push(pool, tape, row, count):
    """Store ``row`` at ``tape[count]``, doubling the tape first when it is full.

    The grown buffer goes back to the tape's ``pool`` (kept by the compiled
    function), so the next call starts with it: page faults on fresh memory,
    not the copying, dominate a growing tape's cost. Big ones get huge pages.
    """
    if count >= tape.shape[0]:
        bigger = np.empty((2 * tape.shape[0],) + tape.shape[1:], tape.dtype)
        if bigger.nbytes >= _HUGE_MIN_BYTES:
            huge_pages(bigger)
        bigger[: tape.shape[0]] = tape
        tape = bigger
        pool[0] = tape
    tape[count] = row
    return tape
