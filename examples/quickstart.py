"""jitaic in one screen: jit a NumPy function, check it, time it, look inside.

    pip install -e . && python examples/quickstart.py

The function below is ordinary NumPy: a numerically stable softmax over each
row of ``x`` followed by a weighted sum of the probabilities.  NumPy runs it as
six passes over memory with five temporary (2000, 512) arrays; jitaic traces it
once per input shape into a typed graph and compiles that graph with numba
into fused loops.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import jitaic


@jitaic.jit
def softmax_pool(x, w):
    """Row-wise softmax of ``x`` (n, d), then the ``w``-weighted sum of each row."""
    e = np.exp(x - x.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return (p * w).sum(axis=1)


def median_seconds(fn, *args, repeats: int = 25) -> float:
    fn(*args)  # warm-up: compile (jitaic) and touch the memory
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2000, 512)) * 3.0
    w = rng.standard_normal(512)
    numpy_version = softmax_pool.__wrapped__  # the undecorated function

    # 1. same values as NumPy
    expected = numpy_version(x, w)
    got = softmax_pool(x, w)  # first call: trace, optimise, compile
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    print(f"result matches NumPy: shape {got.shape}, dtype {got.dtype}")

    # 2. timing of cached calls
    t_np = median_seconds(numpy_version, x, w)
    t_jit = median_seconds(softmax_pool, x, w)
    print(f"numpy  : {t_np * 1e3:8.3f} ms  (median of 25)")
    print(f"jitaic : {t_jit * 1e3:8.3f} ms  (median of 25)")
    print(f"speed-up numpy/jitaic: {t_np / t_jit:.2f}x")

    # 3. what was compiled
    print()
    print(softmax_pool.cache_info())
    (spec,) = softmax_pool.specializations()
    print(f"specialization key : {spec.key}")
    print(f"compile seconds    : {spec.compile_seconds:.3f}")

    print("\noptimised IR (first 25 lines of f.lower(x, w).as_text()):")
    lines = softmax_pool.lower(x, w).as_text().splitlines()
    for line in lines[:25]:
        print("   ", line)
    if len(lines) > 25:
        print(f"    ... ({len(lines) - 25} more lines)")

    # 4. a new shape is a new specialization; the old one stays cached
    x2 = rng.standard_normal((300, 64))
    w2 = rng.standard_normal(64)
    np.testing.assert_allclose(softmax_pool(x2, w2), numpy_version(x2, w2), rtol=1e-10)
    softmax_pool(x, w)  # hit
    info = softmax_pool.cache_info()
    print(f"\nafter a (300, 64) call: {info}")
    assert info.entries == 2, info
    for s in softmax_pool.specializations():
        print(f"  key={s.key}  hits={s.hits}  compile={s.compile_seconds:.3f}s")


if __name__ == "__main__":
    main()
