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
    if a.sum() > -1.5:
        v0 = np.where(a[1:] > 2.0, a[1:], a)
    else:
        v0 = np.sin(a)
    return v0, a


def make_args():
    b0 = np.array([
            0.0
        ], dtype='float64').reshape((1,))
    return (b0,)
