"""Issue 17: a write at a run-time index out of range raises IndexError."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:IndexError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, idx):
    a[idx[0]] = 1.0
    return a.sum()


def make_args():
    return (np.arange(5.0), np.array([5]))
