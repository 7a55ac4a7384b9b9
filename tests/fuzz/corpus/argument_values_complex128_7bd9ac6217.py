"""Fuzzer reproducer, mode trace: argument-values:complex128. argument leaf 2 at (1, 1, 0):
jitaic np.complex128(-8.496160255488813e-210j), NumPy
np.complex128(-0-8.496160255488813e-210j)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'argument-values:complex128'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a, b, c):
    c *= np.sin((a - c).sum(axis=None, keepdims=True))
    return a, a


def make_args():
    b0 = np.array([
            0.0, 0.0
        ], dtype='float64').reshape((2, 1))
    b1 = np.array([
            0.0
        ], dtype='float64').reshape((1,))
    b2 = np.array([
            complex(0.0, 1.015356702581089), complex(0.0, 0.0), complex(0.0, 0.0),
            complex(7.085817960689889e-210, 0.0)
        ], dtype='complex128').reshape((2, 2, 1))
    return (b0, b1, b2,)
