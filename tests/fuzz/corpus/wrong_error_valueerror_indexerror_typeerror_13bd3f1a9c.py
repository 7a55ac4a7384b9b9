"""Fuzzer reproducer, mode ast: wrong-error:ValueError|IndexError->TypeError: Cannot cast
ufunc '*' output from dtype('*') to dtype('*') with casting rule '*'. NumPy raises
AxisError(0, 0, None), jitaic TypeError("Cannot cast ufunc 'add' output from
dtype('int64') to dtype('uint8') with casting rule 'same_kind' at case_26878_500.py:18
(in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "wrong-error:ValueError|IndexError->TypeError: Cannot cast ufunc '*' output from dtype('*') to dtype('*') with casting rule '*'"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    for i in range(3):
        v0 = np.abs(b) + True
        a += np.abs(a)
    for i in range(3):
        a[...] += np.where(np.where(a > 1, a, a) > 1, np.where(a > 1, a, a), i)
    v1 = a.var(axis=0, keepdims=True, dtype=np.float64, ddof=1) + 0.5
    return c, a


def make_args():
    b0 = np.array([
            0
        ], dtype='uint8').reshape(())
    b1 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b1, b2,)
