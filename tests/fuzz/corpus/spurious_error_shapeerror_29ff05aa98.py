"""Fuzzer reproducer, mode ast: spurious-error:ShapeError: cannot scatter uN[N,N] into the
(shape) elements of uN[N]. jitaic raises ShapeError('cannot scatter u64[1,0] into the
(0,) elements of u64[0] (in scatter) at case_25175_250.py:21 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ShapeError: cannot scatter uN[N,N] into the (shape) elements of uN[N]'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    v0 = a[0]
    if a.sum(dtype=np.float64) > (2 - 0.5j):
        a += np.abs((a + (2 - 0.5j)))
    k = 0
    while k < 3 and np.sum(a, dtype=np.int64) > 1j:
        v1 = np.abs(a)
        k += 1
    b[b] = a + 1j
    return v0, a


def make_args():
    b0 = np.array([

        ], dtype='complex64').reshape((1, 0))
    b1 = np.array([

        ], dtype='uint64').reshape((0,))
    return (b0, b1,)
