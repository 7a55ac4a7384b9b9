"""Realistic functions whose first call bench_compile.py times in fresh processes.

Each entry is plain NumPy code of a kind users write: elementwise chains,
reductions, stencils, time-stepping loops, run-time slices, factorisations,
an MLP gradient and second-order gradients. ``CORPUS`` maps a name to
``(kind, function, make_args)``; the function is what ``jitaic.jit`` wraps.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import jitaic

CORPUS: dict[str, tuple[str, Callable, Callable[[np.random.Generator], tuple]]] = {}


def entry(kind: str, make_args: Callable[[np.random.Generator], tuple]):
    def register(fn: Callable) -> Callable:
        CORPUS[fn.__name__] = (kind, fn, make_args)
        return fn
    return register


def matrix(n=256, m=128):
    return lambda rng: (rng.standard_normal((n, m)),)


def vector(n=10_000):
    return lambda rng: (rng.standard_normal(n),)


def grid(n=128):
    return lambda rng: (rng.random((n, n)),)


def spd(n=64):
    def make(rng):
        a = rng.standard_normal((n, n))
        return a @ a.T + n * np.eye(n), rng.standard_normal(n)
    return make


# ---------------------------------------------------------------- elementwise chains

@entry("elementwise", matrix())
def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@entry("elementwise", vector())
def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


@entry("elementwise", lambda rng: (rng.random(10_000) + 0.5, rng.random(10_000) + 0.5,
                                   rng.random(10_000)))
def black_scholes(price, strike, years):
    rate, vol = 0.02, 0.3
    d1 = (np.log(price / strike) + (rate + 0.5 * vol ** 2) * years) / (vol * np.sqrt(years))
    d2 = d1 - vol * np.sqrt(years)
    discount = strike * np.exp(-rate * years)
    return price * 0.5 * (1 + np.tanh(d1)) - discount * 0.5 * (1 + np.tanh(d2))


@entry("elementwise", vector())
def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


@entry("elementwise", vector())
def horner(x):
    y = np.zeros_like(x)
    for c in (1.0, -0.5, 0.25, 3.0, -1.0, 0.1):
        y = y * x + c
    return y


@entry("elementwise", vector())
def clipped_where(x):
    y = np.clip(x, -1.0, 1.0)
    return np.where(y > 0, np.sqrt(np.abs(y)), -y * y) + np.maximum(x, 0.0)


# ---------------------------------------------------------------- reductions

@entry("reduction", matrix())
def standardize(x):
    return (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-8)


@entry("reduction", matrix())
def logsumexp_rows(x):
    m = x.max(axis=1)
    return m + np.log(np.exp(x - m[:, None]).sum(axis=1))


@entry("reduction", matrix())
def row_norms_argmax(x):
    norms = np.sqrt((x * x).sum(axis=1))
    return norms.argmax(), np.linalg.norm(x, axis=0)


@entry("reduction", vector())
def cumulative(x):
    c = np.cumsum(x)
    return c[-1], np.diff(c).max(), np.mean(np.abs(x))


@entry("reduction", lambda rng: (rng.standard_normal((500, 8)), rng.standard_normal((16, 8))))
def kmeans_assign(points, centers):
    d = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
    return d.argmin(axis=1), d.min(axis=1).sum()


# ---------------------------------------------------------------- stencils

@entry("stencil", grid())
def jacobi_step(a):
    b = a.copy()
    b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2]
                           + a[1:-1, 2:])
    return b


@entry("stencil", grid())
def laplacian(u):
    return u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]


@entry("stencil", vector(2_000))
def conv1d(x):
    return 0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:]


@entry("stencil", grid(64))
def jacobi_sweeps(a):
    for _ in range(20):
        a[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    return a


# ---------------------------------------------------------------- time-stepping loops

@entry("time loop", vector(1_000))
def heat_1d(u):
    for _ in range(100):
        u[1:-1] = u[1:-1] + 0.1 * (u[:-2] - 2 * u[1:-1] + u[2:])
    return u


@entry("time loop", lambda rng: (rng.random((64, 3)), rng.random((64, 3)) - 0.5,
                                 rng.random(64) + 0.5))
def nbody_step(pos, vel, mass):
    for _ in range(10):
        d = pos[None, :, :] - pos[:, None, :]
        r2 = (d ** 2).sum(axis=2) + 0.01
        acc = (d * (mass[None, :] / r2 ** 1.5)[:, :, None]).sum(axis=1)
        vel = vel + 0.01 * acc
        pos = pos + 0.01 * vel
    return pos, vel


@entry("time loop", vector(1_000))
def euler_ode(y):
    t = 0.0
    while t < 1.0:
        y = y + 0.01 * (-y + np.sin(t))
        t += 0.01
    return y


@entry("time loop", lambda rng: (rng.random(1_000),))
def logistic_map(x):
    steps = 0
    while x.mean() > 0.01 and steps < 500:
        x = 3.7 * x * (1 - x) * 0.99
        steps += 1
    return x, steps


@entry("time loop", lambda rng: (rng.random(1_000) + 1.0,))
def newton_sqrt(a):
    x = a.copy()
    while np.max(np.abs(x * x - a)) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


# ---------------------------------------------------------------- run-time slices

@entry("run-time slice", lambda rng: (rng.standard_normal(2_000), 16))
def moving_sums(x, k):
    out = np.zeros(x.shape[0] - k)
    for i in range(x.shape[0] - k):
        out[i] = x[i:i + k].sum()
    return out


@entry("run-time slice", lambda rng: (rng.standard_normal(500),))
def prefix_max(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[: i + 1].max()
    return out


@entry("run-time slice", lambda rng: (rng.standard_normal((100, 100)),))
def trisolv(a):
    n = a.shape[0]
    lower = np.tril(a) + n * np.eye(n)
    b = np.ones(n)
    x = np.zeros(n)
    for i in range(n):
        x[i] = (b[i] - lower[i, :i] @ x[:i]) / lower[i, i]
    return x


# ---------------------------------------------------------------- factorisations

@entry("factorisation", spd())
def cholesky_solve(a, b):
    return np.linalg.cholesky(a), np.linalg.solve(a, b)


@entry("factorisation", spd())
def inverse_det(a, b):
    return np.linalg.inv(a) @ b, np.linalg.slogdet(a)[1]


@entry("factorisation", lambda rng: (rng.standard_normal((60, 60)) + 60 * np.eye(60),))
def lu_loops(a):
    n = a.shape[0]
    for k in range(n):
        a[k + 1:, k] = a[k + 1:, k] / a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a


@entry("factorisation", lambda rng: (rng.random(64) + np.arange(64, 0, -1.0),))
def levinson(r):
    n = r.shape[0] - 1
    y = np.zeros(n)
    y[0] = -r[1] / r[0]
    beta, alpha = 1.0, -r[1] / r[0]
    for k in range(1, n):
        beta = (1 - alpha * alpha) * beta
        alpha = -(r[k + 1] + np.dot(r[k:0:-1], y[:k])) / beta
        y[:k] = y[:k] + alpha * y[k - 1::-1]
        y[k] = alpha
    return y


# ---------------------------------------------------------------- gradients

def _mlp_args(rng):
    return ({"w1": 0.1 * rng.standard_normal((64, 32)), "b1": np.zeros(32),
             "w2": 0.1 * rng.standard_normal((32, 10)), "b2": np.zeros(10)},
            rng.standard_normal((128, 64)), rng.integers(0, 10, 128))


def _mlp_loss(params, x, labels):
    h = np.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    logits = logits - logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -logp[np.arange(labels.shape[0]), labels].mean()


@entry("gradient", _mlp_args)
def mlp_grad(params, x, labels):
    return jitaic.value_and_grad(_mlp_loss)(params, x, labels)


def _logistic_loss(w, x, y):
    z = x @ w
    return np.mean(np.log1p(np.exp(-y * z)))


@entry("gradient", lambda rng: (rng.standard_normal(20), rng.standard_normal((1000, 20)),
                                np.sign(rng.standard_normal(1000))))
def logistic_grad(w, x, y):
    return jitaic.grad(_logistic_loss)(w, x, y)


def _loop_loss(w, y):
    total = 0.0
    while total < 50.0:
        y = np.tanh(y * w + 0.5)
        total += y.mean()
    return np.sum(y)


@entry("gradient", lambda rng: (rng.random(256), rng.random(256)))
def while_grad(w, y):
    return jitaic.grad(_loop_loss)(w, y)


def _energy(x):
    return np.sum(np.sin(x) * x ** 2)


@entry("second-order gradient", lambda rng: (rng.standard_normal(1_000),))
def hessian_diagonal_sum(x):
    return jitaic.grad(lambda x: np.sum(jitaic.grad(_energy)(x)))(x)


@entry("second-order gradient", lambda rng: (rng.standard_normal(500), rng.standard_normal(500)))
def hessian_vector(x, v):
    return jitaic.grad(lambda x: np.sum(jitaic.grad(_energy)(x) * v))(x)


@entry("second-order gradient", lambda rng: (rng.standard_normal(3),))
def scalar_third_derivative(x):
    f = lambda t: np.sum(np.exp(np.sin(t)) * t)  # noqa: E731
    return jitaic.grad(lambda t: np.sum(jitaic.grad(lambda s: np.sum(jitaic.grad(f)(s)))(t)))(x)
