"""Fuzzer reproducer, mode ast: spurious-error:ValueError: could not broadcast input array
from shape (None,) into shape (shape). jitaic raises ValueError('could not broadcast
input array from shape (None,) into shape () (in setitem) at case_21793_389.py:18 (in
f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ValueError: could not broadcast input array from shape (None,) into shape (shape)'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    v0 = np.abs(a)
    v1 = np.abs(a)
    for i in range(3):
        v4 = a + a
    a[..., 0] = np.abs(b[b[0]:b[0] + 2])
    return v1, a


def make_args():
    b0 = np.array([
            3, 0, 0
        ], dtype='int64').reshape((3,))
    b1 = np.array([
            1, 1
        ], dtype='int32').reshape((2,))
    return (b0, b1,)
