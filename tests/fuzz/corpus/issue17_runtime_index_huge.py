"""Issue 17: a huge run-time index raises IndexError (it segfaulted)."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'crash:SIGSEGV'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, idx):
    return a[idx[0]]


def make_args():
    return (np.arange(5.0), np.array([10 ** 12]))
