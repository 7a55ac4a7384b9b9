"""Fuzzer reproducer, mode grad: grad-error:CompileError. CompileError("internal error
while differentiating 'objective' (a jitaic bug; please report it): TypeError: int()
argument must be a string, a bytes-like object or a real number, not 'NoneType'")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'grad-error:CompileError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a):
    v0 = np.sin(a)
    v1 = np.sin(a)
    if a.sum() < 2.0:
        v2 = np.sin(a)
    else:
        v2 = np.sin(a[1:])
    return v2


def make_args():
    b0 = np.array([
            0.0, 0.0
        ], dtype='float64').reshape((2,))
    return (b0,)
