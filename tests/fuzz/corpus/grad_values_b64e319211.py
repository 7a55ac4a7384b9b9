"""Fuzzer reproducer, mode grad: grad-values. d/d(argument 0) at (0,): jitaic
np.float64(nan), differences np.float64(0.3781067635932889)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'grad-values'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a):
    v0 = np.where(np.sin(a) > 2.0, np.sin(a), a) + 2.0
    a[0] += np.sin(a[0])
    v1 = np.where(np.sin(a) > 2.0, np.sin(a), a) - -1.5
    v0 = (np.var(np.cos(v0), keepdims=True, ddof=1) * (0.5 - 2j))
    v0[..., 0] *= a[0]
    v2 = (v1[2:0] * (v0 ** 2))[None]
    return v1, v2


def make_args():
    b0 = np.array([
            1.8043115003665097e-80
        ], dtype='float64').reshape((1,))
    return (b0,)
