"""Generator.choice without replacement, which numba's Generator lacks, and
Generator.wald, whose numba version rounds differently: NumPy's algorithms
(Floyd's sampling with a hash set, or a tail shuffle of the whole
population; with probabilities, rounds of draws through their CDF; wald's
transformation of a normal) on the Generator's own streams, so compiled
code draws NumPy's numbers and leaves the Generator where NumPy would.
Built on the bounded-integer routines and draws of numba's Generator
(numba.np.random), which are NumPy's. Generated code calls these as
``sampling.*``."""

from __future__ import annotations

import numba
import numpy as np
from numba.np.random.generator_core import next_uint32
from numba.np.random.random_methods import (
    bounded_lemire_uint64,
    buffered_bounded_lemire_uint32,
    gen_mask,
)

_EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)  # a free slot of the hash set


@numba.njit(cache=True)
def _bounded(bitgen, rng):
    """NumPy's random_bounded_uint64(bitgen, 0, rng): uniform in [0, rng]."""
    if rng == 0:
        return np.int64(0)
    if rng < 0xFFFFFFFF:
        return np.int64(buffered_bounded_lemire_uint32(bitgen, np.uint32(rng)))
    if rng == 0xFFFFFFFF:
        return np.int64(next_uint32(bitgen))
    return np.int64(bounded_lemire_uint64(bitgen, np.uint64(rng)))


@numba.njit(cache=True)
def _shuffle_tail(bitgen, data, first):
    """NumPy's _shuffle_int: swap data[i] with a data[j], j <= i, for i from
    the last index down to ``first``."""
    for i in range(data.shape[0] - 1, first - 1, -1):
        j = _bounded(bitgen, i)
        data[i], data[j] = data[j], data[i]


@numba.njit(cache=True)
def choice_without_replacement(generator, population, size, shuffle):
    """``generator.choice(population, size, replace=False, shuffle=shuffle)``
    (1-D, int64), drawn as NumPy draws it."""
    bitgen = generator.bit_generator
    cutoff = 50 if shuffle else 20
    if population > 10000 and size > population // cutoff:
        everyone = np.arange(population)
        _shuffle_tail(bitgen, everyone, max(population - size, 1))
        return everyone[population - size:].copy()
    out = np.empty(size, np.int64)
    mask = gen_mask(np.uint64(1.2 * size))
    seen = np.full(np.int64(mask) + 1, _EMPTY, np.uint64)
    for j in range(population - size, population):
        value = np.uint64(_bounded(bitgen, j))
        slot = value & mask
        while seen[slot] != _EMPTY and seen[slot] != value:
            slot = (slot + np.uint64(1)) & mask
        if seen[slot] == _EMPTY:
            seen[slot] = value
            out[j - population + size] = np.int64(value)
        else:  # drawn before: take j itself, which no earlier step could draw
            slot = np.uint64(j) & mask
            while seen[slot] != _EMPTY:
                slot = (slot + np.uint64(1)) & mask
            seen[slot] = np.uint64(j)
            out[j - population + size] = j
    if shuffle:
        _shuffle_tail(bitgen, out, 1)
    return out


@numba.njit(cache=True)
def weighted_choice_without_replacement(generator, p, size):
    """``generator.choice(len(p), size, replace=False, p=p)`` (1-D, int64),
    drawn as NumPy draws it: rounds of uniform draws, one per index still
    wanted, through the CDF of the probabilities of the indices not chosen
    yet (a sequential cumulative sum, divided by its last value); a round
    keeps the first draw of each index, in the order drawn."""
    n = p.shape[0]
    if np.count_nonzero(p > 0) < size:
        raise ValueError("Fewer non-zero entries in p than size")
    weights, cdf, out = p.copy(), np.empty(n), np.empty(size, np.int64)
    count = 0
    while count < size:
        draws = np.empty(size - count)
        for k in range(draws.shape[0]):
            draws[k] = generator.random()
        total = 0.0
        for i in range(n):
            total += weights[i]
            cdf[i] = total
        cdf /= cdf[n - 1]
        drawn = np.zeros(n, np.bool_)
        for x in draws:
            index = np.searchsorted(cdf, x, side="right")
            if not drawn[index]:
                drawn[index] = True
                weights[index] = 0.0
                out[count] = index
                count += 1
    return out


@numba.njit(cache=True)
def wald(generator, mean, scale, count):
    """``count`` draws of ``generator.wald(mean, scale)``: NumPy's random_wald
    (Michael, Schucany and Haas: a root of the normal draw's square chosen by
    a uniform draw), spelled as NumPy spells it, which keeps the cancellation
    of mean - sqrt(...) out, so each draw is NumPy's to the bit."""
    if mean <= 0:  # (NaN passes, as in NumPy)
        raise ValueError("mean <= 0")
    if scale <= 0:
        raise ValueError("scale <= 0")
    out = np.empty(count, np.float64)
    for k in range(count):
        y = generator.standard_normal()
        y = mean * y * y
        d = 1.0 + np.sqrt(1.0 + 4.0 * scale / y)
        x = mean * (1.0 - 2.0 / d)
        out[k] = x if generator.random() <= mean / (mean + x) else mean * mean / x
    return out
