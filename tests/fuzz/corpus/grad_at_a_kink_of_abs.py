"""Found by the fuzzer, not a bug of jitaic's: |z| at z = 9e-225 + 0j has slope
1 along the real axis, which jitaic's gradient gives; central differences of any
step straddle the kink at 0 and see a flat function. The gradient check now
compares one-sided slopes where it disagrees, and concludes nothing at a kink."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'grad-values'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a, b, c):
    if a.sum() > 2.0:
        v0 = np.abs(b)
    else:
        v0 = np.abs(b)
    return v0, a


def make_args():
    b0 = np.array([
            0.0
        ], dtype='float64').reshape((1,))
    b1 = np.array([
            complex(9.126070342718995e-225, 0.0)
        ], dtype='complex128').reshape((1, 1, 1))
    b2 = np.array([
            0.0
        ], dtype='float64').reshape((1,))
    return (b0, b1, b2,)
