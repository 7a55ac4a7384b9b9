"""Fuzzer reproducer, mode ast: spurious-error:ValueError: non-broadcastable output operand
with shape (None, N, N) doesn't match the broadcast shape. jitaic raises
ValueError("non-broadcastable output operand with shape (None, 0, 1) doesn't match the
broadcast shape (0, 0, 1) at case_32358_481.py:23 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "spurious-error:ValueError: non-broadcastable output operand with shape (None, N, N) doesn't match the broadcast shape"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    v2 = np.abs(np.square(a))
    a[a > 0] = True
    k = 0
    while k < 3 and a.sum(dtype=np.float64) > 1:
        a[a > 0] = True
        k += 1
    if a.argmax() > 1:
        a[a > 0] = True
    else:
        b[d:] += b + 1j
    return v2


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b1 = np.array([

        ], dtype='complex64').reshape((0, 0, 1))
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    b3 = np.array([
            1
        ], dtype='int64').reshape(())
    return (b0, b1, b2, b3,)
