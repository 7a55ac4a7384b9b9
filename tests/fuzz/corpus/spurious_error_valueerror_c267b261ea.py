"""Fuzzer reproducer, mode ast: spurious-error:ValueError: non-broadcastable output operand
with shape (shape) doesn't match the broadcast shape (sha. jitaic raises
ValueError("non-broadcastable output operand with shape (1,) doesn't match the broadcast
shape (1, 1) at case_26796_809.py:16 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "spurious-error:ValueError: non-broadcastable output operand with shape (shape) doesn't match the broadcast shape (sha"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a, b):
    k = 0
    while k < 3 and a.sum() > 2.0:
        a[k] += a + 2.0
        k += 1
    return b, a


def make_args():
    b0 = np.array([
            0.0
        ], dtype='float64').reshape((1, 1))
    return (b0, b0,)
