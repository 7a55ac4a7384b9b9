"""Fuzzer reproducer, mode ast: wrong-error:IndexError->TypeError: Cannot cast ufunc '*'
output from dtype('*') to dtype('*') with casting rule '*'. NumPy raises
IndexError('index 0 is out of bounds for axis 0 with size 0'), jitaic TypeError("Cannot
cast ufunc 'add' output from dtype('float64') to dtype('bool') with casting rule
'same_kind' at case_1142_185.py:15 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "wrong-error:IndexError->TypeError: Cannot cast ufunc '*' output from dtype('*') to dtype('*') with casting rule '*'"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    for i in range(3):
        a[i] += a / True
    return d, a


def make_args():
    b0 = np.array([

        ], dtype='bool').reshape((0, 0))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b0, b1, b2,)
