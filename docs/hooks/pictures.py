"""The example functions whose graphs the docs show (``how-it-works.md``).

Drawn under the reference backend: a picture needs the optimised graph and
the fusion plan, not machine code, so the docs build compiles nothing.
"""

from __future__ import annotations

import numpy as np

import jitaic


def softmax_layer(x, w):
    h = np.tanh(x @ w)
    e = np.exp(h - h.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def relax(a, steps):
    for _ in range(steps):
        a[1:-1] = 0.5 * (a[:-2] + a[2:])
    if a.max() > 1.0:
        a = a / a.max()
    return a


def loss(w, x):
    return softmax_layer(x, w).sum()


def graphs() -> dict[str, jitaic.lowered.Lowered]:
    x, w = np.ones((256, 64)), np.ones((64, 10))
    return {
        "softmax_layer": jitaic.jit(softmax_layer).lower(x, w),
        "relax": jitaic.jit(relax, mode="ast").lower(np.ones(100), 50),
        "softmax_layer_grad": jitaic.jit(jitaic.grad(loss)).lower(w, x),
    }


def render_all() -> dict[str, str]:
    with jitaic.config.override(backend="reference"):
        return {name: lowered.graph().svg() for name, lowered in graphs().items()}
