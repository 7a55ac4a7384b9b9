"""Functions the pickling tests ship to other processes (imported there by name)."""

import numpy as np

import jitaic


@jitaic.jit
def scaled_norm(x, scale):
    return np.sqrt((x * x).sum()) * scale


def energy(x):
    return (np.tanh(x) ** 2).sum()


energy_grad = jitaic.jit(jitaic.grad(energy))
