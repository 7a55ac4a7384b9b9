"""Fuzzer reproducer, mode ast: spurious-error:ShapeError: could not broadcast input array
from shape (None,) into shape (shape). jitaic raises ShapeError('could not broadcast
input array from shape (None,) into shape () (in setitem) at case_6774_942.py:21 (in
f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ShapeError: could not broadcast input array from shape (None,) into shape (shape)'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    if a.min() > 1:
        a[a] += np.abs(b)
    else:
        v0 = a + True
    a[a] += ~c.cumsum(axis=None, dtype=np.int64).sum(keepdims=True)
    k = 0
    while k < 3:
        b[0] = (b + a)[a[0]:a[0] + 2].astype(np.float64)
        k += 1
    return a, a


def make_args():
    b0 = np.array([
            0
        ], dtype='int8').reshape((1,))
    b1 = np.array([
            False, False
        ], dtype='bool').reshape((2,))
    b2 = np.array([
            1, 0
        ], dtype='int8').reshape((2,))
    return (b0, b1, b2,)
