"""Train a small MLP on scikit-learn's bundled 8x8 digits with jitaic.value_and_grad.

    pip install -e ".[examples]" && python examples/train_mlp.py

The loss is plain NumPy; jitaic differentiates and compiles it (forward and
backward fused into one native function per batch shape). The same training
step written by hand in NumPy (manual backprop) is timed side by side.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tqdm import tqdm

import jitaic


def init_params(rng: np.random.Generator, sizes: list[int]) -> dict[str, np.ndarray]:
    params = {}
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        params[f"W{i}"] = rng.normal(0.0, np.sqrt(2.0 / n_in), (n_in, n_out))
        params[f"b{i}"] = np.zeros(n_out)
    return params


def loss(params: dict, x: np.ndarray, y_onehot: np.ndarray) -> float:
    """Softmax cross-entropy of a 2-hidden-layer tanh MLP."""
    h = np.tanh(x @ params["W0"] + params["b0"])
    h = np.tanh(h @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    logits = logits - logits.max(axis=1, keepdims=True)
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -(log_probs * y_onehot).sum() / x.shape[0]


loss_and_grad = jitaic.value_and_grad(loss)


def numpy_loss_and_grad(params: dict, x: np.ndarray, y_onehot: np.ndarray):
    """The same loss and gradient, backpropagated by hand in NumPy."""
    a0 = x @ params["W0"] + params["b0"]
    h0 = np.tanh(a0)
    a1 = h0 @ params["W1"] + params["b1"]
    h1 = np.tanh(a1)
    logits = h1 @ params["W2"] + params["b2"]
    logits = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    probs = e / e.sum(axis=1, keepdims=True)
    n = x.shape[0]
    value = -(np.log(probs) * y_onehot).sum() / n
    d_logits = (probs - y_onehot) / n
    grads = {"W2": h1.T @ d_logits, "b2": d_logits.sum(axis=0)}
    d_a1 = (d_logits @ params["W2"].T) * (1 - h1 * h1)
    grads["W1"], grads["b1"] = h0.T @ d_a1, d_a1.sum(axis=0)
    d_a0 = (d_a1 @ params["W1"].T) * (1 - h0 * h0)
    grads["W0"], grads["b0"] = x.T @ d_a0, d_a0.sum(axis=0)
    return value, grads


def accuracy(params: dict, x: np.ndarray, labels: np.ndarray) -> float:
    h = np.tanh(np.tanh(x @ params["W0"] + params["b0"]) @ params["W1"] + params["b1"])
    return float(((h @ params["W2"] + params["b2"]).argmax(axis=1) == labels).mean())


def median_seconds(fn, repeats: int = 30) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main() -> None:
    digits = load_digits()
    x = digits.data / 16.0
    x_train, x_test, y_train, y_test = train_test_split(
        x, digits.target, test_size=0.25, random_state=0, stratify=digits.target)
    onehot = np.eye(10)[y_train]
    rng = np.random.default_rng(0)
    params = init_params(rng, [64, 128, 64, 10])
    batch, lr, epochs = 64, 0.1, 40

    # The compiled gradient agrees with hand-written backprop.
    v, g = loss_and_grad(params, x_train[:batch], onehot[:batch])
    v_ref, g_ref = numpy_loss_and_grad(params, x_train[:batch], onehot[:batch])
    assert np.isclose(v, v_ref)
    for k in params:
        np.testing.assert_allclose(g[k], g_ref[k], rtol=1e-7, atol=1e-10)

    n_batches = len(x_train) // batch
    for epoch in range(epochs):
        order = rng.permutation(len(x_train))
        total = 0.0
        bar = tqdm(range(n_batches), desc=f"epoch {epoch + 1:2d}/{epochs}", leave=False)
        for b in bar:
            idx = order[b * batch:(b + 1) * batch]
            value, grads = loss_and_grad(params, x_train[idx], onehot[idx])
            params = {k: params[k] - lr * grads[k] for k in params}
            total += float(value)
            bar.set_postfix(loss=f"{total / (b + 1):.4f}")
    test_acc = accuracy(params, x_test, y_test)
    print(f"test accuracy after {epochs} epochs: {test_acc:.3f}")

    xb, yb = x_train[:batch], onehot[:batch]
    t_jit = median_seconds(lambda: loss_and_grad(params, xb, yb))
    t_np = median_seconds(lambda: numpy_loss_and_grad(params, xb, yb))
    print(f"training step (forward + backward, batch {batch}): jitaic {t_jit * 1e6:.0f} us, "
          f"hand-written NumPy backprop {t_np * 1e6:.0f} us ({t_np / t_jit:.2f}x)")
    print(loss_and_grad.cache_info())
    assert test_acc >= 0.95, "the MLP should reach at least 95% test accuracy"


if __name__ == "__main__":
    main()
