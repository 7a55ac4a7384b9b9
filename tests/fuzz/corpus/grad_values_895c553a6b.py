"""Fuzzer reproducer, mode grad: grad-values. d/d(argument 0) at (): jitaic
np.float64(nan), differences np.float64(-1.209544672226751)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'grad-values'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a, b):
    b[b > 0] = -1.5
    b[b > 0] = 2.0
    v0 = np.where(np.cumsum(b) == 2.0, np.cumsum(b), a)[1:]
    b += np.prod((b - 0.5))
    b[::-1] *= np.where(a.var(keepdims=True, ddof=1) == -1.5, a.var(keepdims=True, ddof=1), a)
    v1 = np.cos(np.cos(np.where(b > -1.5, b, a)))
    return b


def make_args():
    b0 = np.array([
            -1.1125369292536007e-308
        ], dtype='float64').reshape(())
    b1 = np.array([
            1.9981769438634425
        ], dtype='float64').reshape((1, 1))
    return (b0, b1[::-1],)
