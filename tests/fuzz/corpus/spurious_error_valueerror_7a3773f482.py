"""Fuzzer reproducer, mode trace: spurious-error:ValueError: could not broadcast input
array into the assigned region: lengths known at run time differ. jitaic raises
ValueError('could not broadcast input array into the assigned region: lengths known at
run time differ (1 vs 0) at case_633_662.py:14 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ValueError: could not broadcast input array into the assigned region: lengths known at run time differ'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    a[b:] = a[a[0]:]
    return b, a


def make_args():
    b0 = np.array([
            0
        ], dtype='int8').reshape((1,))
    b1 = np.array([
            1
        ], dtype='int64').reshape(())
    return (b0, b1,)
