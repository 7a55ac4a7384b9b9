"""Fuzzer reproducer, mode trace: wrong-error:IndexError->TypeError: Cannot cast ufunc '*'
output from dtype('*') to dtype('*') with casting rule '*'. NumPy raises
IndexError('index 1 is out of bounds for axis 0 with size 1'), jitaic TypeError("Cannot
cast ufunc 'add' output from dtype('int8') to dtype('bool') with casting rule
'same_kind' at case_27460_698.py:16 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "wrong-error:IndexError->TypeError: Cannot cast ufunc '*' output from dtype('*') to dtype('*') with casting rule '*'"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v0 = np.square(a)
    v1 = np.square(a)
    b[c] += v1
    return v1, v1


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b2 = np.array([
            0, 1
        ], dtype='int64').reshape((2,))
    return (b0, b1, b2,)
