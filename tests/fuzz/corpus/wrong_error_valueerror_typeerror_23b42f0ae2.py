"""Fuzzer reproducer, mode trace: wrong-error:ValueError->TypeError: Cannot cast ufunc '*'
output from dtype('*') to dtype('*') with casting rule '*'. NumPy raises
ValueError('operands could not be broadcast together with shapes (0,1,3) (0,1,3) (2,3,1)
'), jitaic TypeError("Cannot cast ufunc 'multiply' output from dtype('float64') to
dtype('bool') with casting rule 'same_kind' at case_27975_308.py:17 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "wrong-error:ValueError->TypeError: Cannot cast ufunc '*' output from dtype('*') to dtype('*') with casting rule '*'"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    a[c[0]:] = np.abs(a).all(axis=None, keepdims=True)
    v0 = np.sqrt(a.cumprod(axis=None)).sum(axis=None, keepdims=True)
    a[a > 0] = 1
    b[1:, -1] *= np.where((b[c[0]:] / np.log(c)) == np.nan, (b[c[0]:] / np.log(c)), a)
    return a


def make_args():
    b0 = np.array([
            True, False, False, False, False, False
        ], dtype='bool').reshape((2, 3, 1))
    b1 = np.array([
            True, False
        ], dtype='bool').reshape((2, 1, 1))
    b2 = np.array([
            6, 3, 0
        ], dtype='int64').reshape((3,))
    return (b0, b1, b2,)
