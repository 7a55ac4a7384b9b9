"""Issue 17: Python ints out of a dtype's range where NumPy 2 accepts them."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(u8, i64, x):
    return u8 == 300, i64 == 2 ** 64, np.clip(u8, -1, 3), x * 2 ** 70


def make_args():
    return (np.array([1, 5], dtype=np.uint8), np.array([1, 2]), np.array([1.0, 2.0]))
