"""Fuzzer reproducer, mode ast: spurious-error:KeyError. jitaic raises
KeyError(140020496801088)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:KeyError: N'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a, b, c):
    v0 = a + np.sin(b[1:])
    v0 = b[1:3]
    for i in range(b.shape[0]):
        v0 = np.where(c >= -1.5, c, v0)
        b[:-1] = np.where(i >= 2.0, i, c)
    c += c ** 2
    return v0


def make_args():
    b0 = np.array([
            2.560284062580609e-279
        ], dtype='float64').reshape((1,))
    b1 = np.array([
            -6.409153246376285e-123, 0.48580429133483305, 0.5366038431700635, 0.0
        ], dtype='float64').reshape((1, 1, 4))
    return (b0, b1, b1,)
