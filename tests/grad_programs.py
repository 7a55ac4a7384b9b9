"""A corpus of training-style scalar programs for the gradient tests (STYLE.md 1.7).

Each ``GradProgram`` is plain NumPy code returning a scalar loss (or
``(loss, aux)`` with ``has_aux``), an argument maker and the ``argnums`` to
differentiate. ``test_autodiff.py`` compares ``jitaic.grad`` of each program
with central differences of the same NumPy code, leaf by leaf.

The corpus covers: an MLP with a dict of parameters (tanh hidden layer,
softmax cross-entropy with integer labels), logistic regression with a Python
float bias, L2-regularised linear regression with a Python float penalty,
layer norm, batched attention, an RNN unrolled over a static length, helpers
calling helpers, a jitted inner function, ``has_aux`` with a dict, tuple and
list parameters, nested dict parameters, and Python float learning rates
(including a hypergradient through an inner ``jitaic.grad``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import jitaic


@dataclass(frozen=True)
class GradProgram:
    name: str
    fn: Callable
    make_args: Callable[[np.random.Generator], tuple]
    argnums: int | tuple[int, ...] = 0
    has_aux: bool = False


GRAD_PROGRAMS: list[GradProgram] = []


def grad_program(make_args: Callable[[np.random.Generator], tuple], argnums=0,
                 has_aux: bool = False):
    def register(fn: Callable) -> Callable:
        GRAD_PROGRAMS.append(GradProgram(fn.__name__, fn, make_args, argnums, has_aux))
        return fn

    return register


def normal(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return rng.normal(0.0, scale, size=shape)


# ---------------------------------------------------------------- helpers


def _log_softmax(z):
    m = np.max(z, axis=-1, keepdims=True)
    shifted = z - m
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _dense(x, w, b):
    return x @ w + b


def _mse(pred, target):
    return np.mean((pred - target) ** 2)


# ---------------------------------------------------------------- models


def _mlp_args(r):
    params = {"W1": normal(r, 4, 6, scale=0.7), "b1": normal(r, 6, scale=0.1),
              "W2": normal(r, 6, 3, scale=0.7), "b2": normal(r, 3, scale=0.1)}
    return params, normal(r, 5, 4), r.integers(0, 3, 5)


@grad_program(_mlp_args)
def mlp_cross_entropy(params, x, labels):
    h = np.tanh(x @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    onehot = (labels[:, None] == np.arange(logits.shape[1])).astype(np.float64)
    return -np.mean(np.sum(onehot * _log_softmax(logits), axis=1))


@grad_program(lambda r: (normal(r, 4), 0.3, normal(r, 8, 4),
                         (r.random(8) < 0.5).astype(np.float64)), argnums=(0, 1))
def logistic_regression(w, b, x, y):
    p = _sigmoid(x @ w + b)
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


@grad_program(lambda r: (normal(r, 3), normal(r, 7, 3), normal(r, 7), 0.25),
              argnums=(0, 3))
def ridge_regression(w, x, y, lam):
    return _mse(x @ w, y) + lam * np.sum(w * w)


_LN_TARGET = np.linspace(-1.0, 1.0, 15).reshape(3, 5)


@grad_program(lambda r: (normal(r, 3, 5), 1.0 + normal(r, 5, scale=0.1),
                         normal(r, 5, scale=0.1)), argnums=(0, 1, 2))
def layer_norm_loss(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * gamma + beta
    return np.sum((y - _LN_TARGET) ** 2)


@grad_program(lambda r: (normal(r, 2, 3, 4), normal(r, 2, 5, 4), normal(r, 2, 5, 4)),
              argnums=(0, 1, 2))
def attention_loss(q, k, v):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    out = _softmax(scores) @ v
    return np.sum(out ** 2)


@grad_program(lambda r: (normal(r, 3, 3, scale=0.5), normal(r, 4, 3), normal(r, 3)),
              argnums=(0, 1, 2))
def rnn_unrolled(w, xs, h0):
    h = h0
    for t in range(xs.shape[0]):  # a static int: unrolled at trace time
        h = np.tanh(h @ w + xs[t])
    return np.sum(h ** 2)


def _huber(r):
    a = np.abs(r)
    return np.where(a < 1.0, 0.5 * r * r, a - 0.5)


@grad_program(lambda r: (normal(r, 3), 0.1, normal(r, 6, 3), normal(r, 6, scale=2.0)),
              argnums=(0, 1))
def huber_regression_via_helpers(w, b, x, y):
    residual = _dense(x, w, b) - y
    return np.mean(_huber(residual))


@jitaic.jit
def _jitted_features(x, w):
    return np.sin(x @ w) + x @ w * 0.5


@grad_program(lambda r: (normal(r, 3, 2), normal(r, 5, 3)))
def calls_jitted_inner(w, x):
    return np.sum(_jitted_features(x, w) ** 2) + np.sum(_jitted_features(x * 0.5, w))


@grad_program(lambda r: (normal(r, 4, 2), normal(r, 6, 4), normal(r, 6, 2)), has_aux=True)
def loss_with_aux(w, x, y):
    pred = x @ w
    err = pred - y
    loss = np.mean(err ** 2)
    return loss, {"pred": pred, "max_err": np.max(np.abs(err)), "n": x.shape[0]}


@grad_program(lambda r: (normal(r, 3, 4), normal(r, 4), normal(r, 4, 2)), argnums=(0, 2))
def argnums_first_and_last(a, b, c):
    return np.sum(np.tanh(a * b) @ c) + np.sum(c ** 3)


@grad_program(lambda r: ((normal(r, 3, 2), normal(r, 2)), normal(r, 5, 3)))
def tuple_params(params, x):
    w, b = params
    return np.sum(np.cos(x @ w + b))


@grad_program(lambda r: ([normal(r, 3, 4, scale=0.5), normal(r, 4, 2, scale=0.5)],
                         normal(r, 5, 3)))
def list_params(layers, x):
    h = x
    for w in layers:
        h = np.tanh(h @ w)
    return np.sum(h ** 2)


@grad_program(lambda r: ({"enc": {"w": normal(r, 3, 3), "b": normal(r, 3)},
                          "scale": np.array(1.5)}, normal(r, 4, 3)))
def nested_dict_params(params, x):
    z = x @ params["enc"]["w"] + params["enc"]["b"]
    return params["scale"] * np.sum(np.log1p(z * z))


@grad_program(lambda r: (normal(r, 4), 0.1, normal(r, 6, 4), normal(r, 6)),
              argnums=(0, 1))
def loss_after_sgd_step(w, lr, x, y):
    # The inner gradient written by hand: d/dw mean((x w - y)^2).
    g = 2.0 * x.T @ (x @ w - y) / x.shape[0]
    w_new = w - lr * g
    return _mse(x @ w_new, y)


def _inner_loss(w, x, y):
    return np.mean(np.tanh(x @ w - y) ** 2)


_inner_grad = jitaic.grad(_inner_loss)


@grad_program(lambda r: (normal(r, 3), 0.2, normal(r, 5, 3), normal(r, 5)),
              argnums=(0, 1))
def hypergradient_via_inner_grad(w, lr, x, y):
    # Differentiating through jitaic.grad: second order through array ops.
    w_new = w - lr * _inner_grad(w, x, y)
    return _inner_loss(w_new, x, y)


@grad_program(lambda r: (normal(r, 2, 3), normal(r, 2, 2)), argnums=(0, 1))
def slice_updates_in_a_loop(x, z):
    y = x.copy()
    for i in range(x.shape[0]):
        y[i, 1:] = y[i, 1:] * z[:, i]
        y[i] += x[i] ** 2
    return np.sum(np.sin(y))


def _spd(x):
    return x @ x.T + np.eye(x.shape[0])


@grad_program(lambda r: (normal(r, 4, 4), normal(r, 4), normal(r, 4, 2)), argnums=(0, 1, 2))
def gaussian_process_nll(x, y, w):
    # -log N(y; 0, K) through Cholesky, solve and slogdet, plus inv and det
    # of a kernel matrix: the linear algebra training code differentiates.
    k = _spd(x) + 0.5 * np.eye(4)
    chol = np.linalg.cholesky(k)
    alpha = np.linalg.solve(chol.T, np.linalg.solve(chol, y))
    fit = 0.5 * y @ alpha + np.log(np.diagonal(chol)).sum()
    penalty = np.sum(np.linalg.solve(k, w) ** 2) + 0.1 * np.linalg.slogdet(k)[1]
    return fit + penalty + 0.01 * np.trace(np.linalg.inv(k)) + 1e-3 * np.linalg.det(k)


# ---------------------------------------------------------------- complex values


def cnormal(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


@grad_program(lambda r: (normal(r, 6), normal(r, 6, 6), np.abs(normal(r, 6)) * 5))
def phase_retrieval(x, a, intensities):
    """A real signal fitted to intensities |F a x|^2 of its Fourier transform."""
    n = x.shape[0]
    k = np.arange(n)
    f = np.exp(-2j * np.pi * np.outer(k, k) / n) / np.sqrt(n)
    return np.sum((np.abs(f @ (a @ x)) ** 2 - intensities) ** 2)


@grad_program(lambda r: (cnormal(r, 3), cnormal(r, 10, 3), cnormal(r, 10)))
def complex_least_squares(w, x, y):
    """Complex weights (their gradient: d/d(re) - 1j d/d(im), JAX's convention)."""
    residual = x @ w - y
    return np.real(np.vdot(residual, residual)) / y.shape[0]


@grad_program(lambda r: (cnormal(r, 4) / 2, normal(r, 4, 4) / 4), argnums=(0, 1))
def schrodinger_steps(psi, h):
    """A state evolved by Crank-Nicolson steps of a real symmetric
    Hamiltonian; the loss is the weight left on the first site."""
    hs = (h + h.T) / 2
    step = np.linalg.solve(np.eye(4) + 0.05j * hs, np.eye(4) - 0.05j * hs)
    for _ in range(5):
        psi = step @ psi
    return np.abs(psi[0]) ** 2 / np.real(np.vdot(psi, psi))

