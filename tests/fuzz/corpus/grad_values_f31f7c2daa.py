"""Fuzzer reproducer, mode grad: grad-values. d/d(argument 0) at (0,): jitaic
np.float64(nan), differences np.float64(0.030200707601402144)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'grad-values'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a, b):
    a[::2] *= np.prod((-a))
    v0 = a.var()
    k = 0
    while k < 1:
        b -= np.sin(v0)
        v1 = np.where((v0 - 0.5) < 0.5, (v0 - 0.5), a)
        k += 1
    return b


def make_args():
    b0 = np.array([
            -0.0, 0.5016139513151372, 1.183470352752951, -1.9017732517466603
        ], dtype='float64').reshape((4,))
    b1 = np.array([
            -0.7464611353329971, -0.7464611353329971, 1.0356466245170329e-147,
            -0.3252284367210767
        ], dtype='float64').reshape((1, 1, 4))
    return (b0, b1[::-1],)
