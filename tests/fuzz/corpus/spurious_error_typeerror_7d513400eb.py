"""Fuzzer reproducer, mode ast: spurious-error:TypeError. jitaic raises TypeError("Cannot
cast ufunc 'add' output from dtype('float64') to dtype('bool') with casting rule
'same_kind' at case_22124_295.py:15 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:TypeError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    if a.max() > 1:
        a += a / True
    return d, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b0, b1, b2,)
