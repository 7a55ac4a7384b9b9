"""Functions the pickling tests ship to other processes (imported there by name)."""

import numpy as np

import jitaic


@jitaic.jit
def scaled_norm(x, scale):
    return np.sqrt((x * x).sum()) * scale


def energy(x):
    return (np.tanh(x) ** 2).sum()


energy_grad = jitaic.jit(jitaic.grad(energy))


@jitaic.jit
def damped(x):
    """Parallel loops on 2^19 elements and more."""
    return np.tanh(x) * np.exp(-x * x)


def damped_sum(seed: int) -> float:
    x = np.random.default_rng(seed).standard_normal(2**19)
    return float(damped(x).sum())
