"""A corpus of user-style NumPy programs (STYLE.md 1.7).

Each program is plain NumPy code as a user would write it, registered with
two argument sets of different shapes (``variants``). ``test_programs.py``
runs each through ``jitaic.jit`` and compares with NumPy.

The corpus covers: numerically careful reductions (softmax, log-sum-exp),
normalisations, an MLP with a dict of parameters, broadcasting tricks,
Python loops over static ints, helpers calling helpers, a module-level
constant array, a closure-captured array, pytree arguments and results,
traced Python float arguments and static Python int and bool arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Program:
    name: str
    fn: Callable
    variants: tuple[Callable[[np.random.Generator], tuple], ...]
    tol: float = 1.0


PROGRAMS: list[Program] = []


def program(*variants: Callable[[np.random.Generator], tuple], tol: float = 10.0):
    """Register ``fn`` with argument makers, one per specialisation."""

    def register(fn: Callable) -> Callable:
        PROGRAMS.append(Program(fn.__name__, fn, variants, tol))
        return fn

    return register


def normal(rng: np.random.Generator, *shape: int, dtype=np.float64) -> np.ndarray:
    return rng.normal(size=shape).astype(dtype)


# ---------------------------------------------------------------- numerics


@program(lambda r: (normal(r, 4, 5),), lambda r: (normal(r, 2, 3, 7, dtype=np.float32) * 30,))
def softmax(x):
    z = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)


@program(lambda r: (normal(r, 3, 4) * 100,), lambda r: (normal(r, 6),))
def logsumexp(x):
    m = x.max(axis=-1, keepdims=True)
    out = m + np.log(np.exp(x - m).sum(axis=-1, keepdims=True))
    return np.squeeze(out, axis=-1)


@program(lambda r: (normal(r, 4, 8), normal(r, 8), normal(r, 8)),
         lambda r: (normal(r, 2, 3, 5), normal(r, 5), normal(r, 5)))
def layer_norm(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + 1e-5) + beta


@program(lambda r: (normal(r, 5, 3),), lambda r: (normal(r, 2, 8, dtype=np.float32),))
def gelu(x):
    # np.sqrt of a Python float is a float64 NumPy scalar: float32 x promotes (NEP 50).
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


@program(lambda r: (np.array([-800.0, -50.0, -1.0, 0.0, 1.0, 50.0, 800.0]),),
         lambda r: (normal(r, 3, 4) * 40,))
def stable_sigmoid(x):
    # Both branches are evaluated, with overflow in the one not selected.
    return np.where(x >= 0, 1.0 / (1.0 + np.exp(-x)), np.exp(x) / (1.0 + np.exp(x)))


@program(lambda r: (normal(r, 6, 3),), lambda r: (normal(r, 4, 5, dtype=np.float32),))
def normalize_columns(x):
    return (x - x.mean(axis=0)) / x.std(axis=0)


@program(lambda r: (normal(r, 5, 3), normal(r, 4, 3)), lambda r: (normal(r, 2, 2), normal(r, 6, 2)))
def pairwise_sq_distances(a, b):
    diff = a[:, None, :] - b[None, :, :]
    return (diff ** 2).sum(axis=-1)


@program(lambda r: (normal(r, 5, 3), normal(r, 4, 3)), lambda r: (normal(r, 2, 6), normal(r, 7, 6)))
def cosine_similarity(a, b):
    a_n = a / np.sqrt((a * a).sum(axis=1, keepdims=True))
    b_n = b / np.sqrt(np.sum(b ** 2, axis=1))[:, None]
    return a_n @ b_n.T


@program(lambda r: (normal(r, 5), normal(r, 4), 3), lambda r: (normal(r, 2, 3), normal(r, 6), 5))
def horner(x, coeffs, degree):
    # degree is a Python int: static, so this loop unrolls at trace time.
    acc = coeffs[degree] * np.ones_like(x)
    for i in range(degree - 1, -1, -1):
        acc = acc * x + coeffs[i]
    return acc


@program(lambda r: (r.integers(0, 4, 6), 4), lambda r: (r.integers(0, 7, 3), 7))
def one_hot(labels, n_classes):
    return (labels[:, None] == np.arange(n_classes)).astype(np.float64)


@program(lambda r: (normal(r, 4, 5), r.integers(0, 5, 4)),
         lambda r: (normal(r, 2, 3), r.integers(0, 3, 2)))
def cross_entropy(logits, labels):
    n, k = logits.shape
    log_p = logits - logsumexp(logits)[:, None]
    onehot = labels[:, None] == np.arange(k)
    return -(log_p * onehot).sum() / n


@program(lambda r: (normal(r, 8),), lambda r: (normal(r, 3, 6),))
def moving_average(x):
    return (x[..., :-2] + x[..., 1:-1] + x[..., 2:]) / 3.0


# ---------------------------------------------------------------- helpers calling helpers


def _center(x):
    return x - x.mean()


def _rms(x):
    return np.sqrt((_center(x) ** 2).mean())


@program(lambda r: (normal(r, 7),), lambda r: (normal(r, 3, 3),))
def standardize(x):
    return _center(x) / _rms(x)


def _dense(x, w, b):
    return x @ w + b


def _relu(x):
    return np.maximum(x, 0.0)


def _mlp_params(rng, n_in, n_hidden, n_out):
    return {"w1": normal(rng, n_in, n_hidden), "b1": normal(rng, n_hidden),
            "w2": normal(rng, n_hidden, n_out), "b2": normal(rng, n_out)}


@program(lambda r: (_mlp_params(r, 3, 8, 2), normal(r, 5, 3)),
         lambda r: (_mlp_params(r, 4, 6, 3), normal(r, 4)))
def mlp_forward(params, x):
    h = _relu(_dense(x, params["w1"], params["b1"]))
    return np.tanh(_dense(h, params["w2"], params["b2"]))


@program(lambda r: (normal(r, 4, 8), normal(r, 6, 8), normal(r, 6, 3)),
         lambda r: (normal(r, 2, 4), normal(r, 3, 4), normal(r, 3, 5)))
def attention(q, k, v):
    d = q.shape[-1]  # a Python int at trace time
    scores = q @ k.T / np.sqrt(d)
    return softmax(scores) @ v


# ---------------------------------------------------------------- captured constants

_MIX = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [0.0, 1.0, 1.0]])


@program(lambda r: (normal(r, 4, 3),), lambda r: (normal(r, 3),))
def mix_with_global(x):
    return x @ _MIX + _MIX[0]


def _make_affine(scale, shift):
    def affine_closure(x):
        return x * scale + shift

    return affine_closure


affine_closure = _make_affine(np.array([2.0, -1.0, 0.5]), np.array([[1.0], [2.0]]))
program(lambda r: (normal(r, 2, 3),), lambda r: (normal(r, 3),))(affine_closure)


# ---------------------------------------------------------------- complex numbers


def cnormal(rng: np.random.Generator, *shape: int, dtype=np.complex128) -> np.ndarray:
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


@program(lambda r: (normal(r, 8),), lambda r: (cnormal(r, 3, 6, dtype=np.complex64),))
def dft_by_matrix(x):
    """The discrete Fourier transform along the last axis, as a matrix product."""
    n = x.shape[-1]
    k = np.arange(n)
    w = np.exp(-2j * np.pi * np.outer(k, k) / n)
    return x @ w.T


@program(lambda r: (cnormal(r, 3) * 0.4, 32), lambda r: (cnormal(r, 5), 64))
def contour_integral(poles, n):
    """The poles of sum(1 / (z - p)) inside the unit circle, counted by the
    trapezoid rule for (1 / 2 pi i) of the contour integral (dz = i z dt)."""
    z = np.exp(2j * np.pi * np.arange(n) / n)
    f = (1.0 / (z[:, None] - poles[None, :])).sum(axis=1)
    return np.sum(f * z) / n, np.sum(np.abs(poles) < 1)


@program(lambda r: (normal(r, 4, 4), 0.5), lambda r: (normal(r, 6, 6), -1.0))
def greens_function(h, energy):
    """The retarded Green's function of a symmetric Hamiltonian, and the
    density of states it gives."""
    hs = (h + h.T) / 2
    g = np.linalg.inv((energy + 0.05j) * np.eye(h.shape[0]) - hs)
    return g, -np.trace(g).imag / np.pi


# ---------------------------------------------------------------- pytrees in and out


@program(lambda r: (normal(r, 5),), lambda r: (normal(r, 2, 3),))
def summary_stats(x):
    return {"mean": x.mean(), "std": x.std(), "range": (x.min(), x.max()),
            "moments": [x.sum(), (x ** 2).sum()]}


@program(lambda r: ((normal(r, 3), normal(r, 3)), normal(r, 3)),
         lambda r: ((normal(r, 2, 2), normal(r, 2)), normal(r, 4, 2, 2)))
def apply_pair(pair, x):
    a, b = pair
    return a * x + b, [a.sum(), b]


@program(lambda r: ({"x": normal(r, 3), "scale": normal(r, 3)}, (normal(r, 3),)),
         lambda r: ({"x": normal(r, 2, 2), "scale": normal(r, 2)}, (normal(r, 2),)))
def dict_and_tuple_args(state, extras):
    (bias,) = extras
    return state["x"] * state["scale"] + bias


# ---------------------------------------------------------------- Python scalar arguments


@program(lambda r: (normal(r, 4), normal(r, 4), 0.1),
         lambda r: (normal(r, 3, 2, dtype=np.float32), normal(r, 3, 2, dtype=np.float32), 0.5))
def sgd_step(w, g, lr):
    # lr is a Python float: traced, weakly typed (float32 w stays float32).
    return w - lr * g


@program(lambda r: (normal(r, 4), 1), lambda r: (normal(r, 2, 3), 4))
def repeat_tanh(x, n):
    for _ in range(n):
        x = np.tanh(x) * 1.5
    return x


@program(lambda r: (normal(r, 6, 3), normal(r, 6), np.zeros(3), 0.05, 10),
         lambda r: (normal(r, 5, 2), normal(r, 5), np.ones(2), 0.1, 3))
def linreg_gradient_descent(X, y, w, lr, steps):
    n = X.shape[0]
    for _ in range(steps):
        grad = X.T @ (X @ w - y) / n
        w = w - lr * grad
    return w


@program(lambda r: (normal(r, 5), True), lambda r: (normal(r, 2, 3), False))
def maybe_relu(x, use_relu):
    # use_relu is a Python bool: static, so plain Python `if` works in trace mode.
    if use_relu:
        return np.maximum(x, 0)
    return x * 1.0


@program(lambda r: (normal(r, 4), 0.5), lambda r: (normal(r, 2, 3) * 10, 2.0))
def clip_by_norm(g, max_norm):
    norm = np.sqrt((g * g).sum())
    return g * np.minimum(1.0, max_norm / norm)


# ---------------------------------------------------------------- calling conventions


@program(lambda r: (normal(r, 3), normal(r, 3), normal(r, 3)),
         lambda r: (normal(r, 2, 2), normal(r, 2, 2)))
def mean_of_varargs(*arrays):
    return np.stack(arrays).mean(axis=0), sum(arrays)


@program(lambda r: (normal(r, 4, 3),), lambda r: (normal(r, 5),))
def static_outputs(x):
    # Python values in the result come back as they are.
    return x.shape, x.ndim, None, "label", x * 2


def _make_jitted_helper():
    import jitaic

    @jitaic.jit
    def inner(x):
        return np.sin(x) * 2

    return inner


_jitted_inner = _make_jitted_helper()


@program(lambda r: (normal(r, 4),), lambda r: (normal(r, 2, 2),))
def calls_a_jitted_function(x):
    return _jitted_inner(x) + _jitted_inner(x * 2)


@program(lambda r: (normal(r, 3, 4),), lambda r: (normal(r, 2, 5),))
def row_norms_by_iteration(x):
    # Iterating over an array yields its rows; a list comprehension builds the result.
    return [np.sqrt((row * row).sum()) for row in x]


@program(lambda r: (normal(r, 4),), lambda r: (normal(r, 2, 3),))
def array_from_traced_scalars(x):
    stats = np.array([x.min(), x.mean(), x.max()])
    return stats, np.asarray(x) * stats[1]
