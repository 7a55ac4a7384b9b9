"""Issue 17: mean(axis=()) reduces nothing."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:float64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    return a.mean(axis=())


def make_args():
    return (np.arange(3.0),)
