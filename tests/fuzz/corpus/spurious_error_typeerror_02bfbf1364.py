"""Fuzzer reproducer, mode trace: spurious-error:TypeError: '*' object cannot be
interpreted as an integer. jitaic raises TypeError("'NoneType' object cannot be
interpreted as an integer")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "spurious-error:TypeError: '*' object cannot be interpreted as an integer"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    a[d[0], ::-1] *= np.abs(c)
    v1 = a + True
    v2 = a[d[0]:]
    v3 = a + c
    for i in range(v2.shape[0]):
        a[a > 0] = True
        v4 = np.abs(a)
    v5 = a * 1
    return v5, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1, 1))
    b1 = np.array([

        ], dtype='bool').reshape((0, 0, 0))
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    b3 = np.array([
            0
        ], dtype='int64').reshape((1,))
    return (b0, b1, b2, b3,)
