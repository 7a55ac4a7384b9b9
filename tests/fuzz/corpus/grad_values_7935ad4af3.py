"""Fuzzer reproducer, mode grad: grad-values. d/d(argument 0) at (0,): jitaic
np.float64(nan), differences np.float64(0.34558419204078206)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'grad-values'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a):
    v0 = np.where(a >= -1.5, a, a) + np.prod((a - a), axis=-1, keepdims=True)
    v1 = v0.mean(keepdims=True)
    return v0


def make_args():
    b0 = np.array([
            -1.7834658012861224, -1.3305122145398407, 3.02662722190969e-246
        ], dtype='float64').reshape((3,))
    return (np.asfortranarray(b0),)
