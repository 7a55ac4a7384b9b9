"""Fuzzer reproducer, mode ast: spurious-error:ValueError: variable vN has shape (shape) on
one path and (shape) on the other; jitaic needs static sh. jitaic raises
ValueError('variable v2 has shape (1,) on one path (computed at case_828_565.py:18) and
(0,) on the other (computed at case_828_565.py:20) at case_828_565.py:17 (in f); jitaic
needs static shapes')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ValueError: variable vN has shape (shape) on one path and (shape) on the other; jitaic needs static sh'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    v0 = a[1:]
    v1 = np.square(a)
    a[v1[0]] *= a + True
    if a.sum(dtype=np.float64) > 1:
        v2 = a + True
    else:
        v2 = a + v0
    return v2


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1,))
    return (b0,)
