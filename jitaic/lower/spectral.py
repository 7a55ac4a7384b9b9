"""Discrete Fourier transforms of one lane in compiled code: a self-sorting
(Stockham) mixed-radix FFT for lengths whose prime factors are small, and
Bluestein's chirp-z algorithm, over a power-of-two FFT, for the others.
The lowering makes a plan per transform op when it generates the code
(``spectral.plan``: its arrays become constants of the function), and the
code calls ``spectral.fft_into`` per lane. Both directions are unnormalised:
``np.fft``'s scaling is applied by the traced code around them.

Arithmetic is in complex128 whatever the lane's dtype (complex64 lanes come
out more accurate than NumPy's single-precision pocketfft, never less).
"""

from __future__ import annotations

import numba
import numpy as np

# The largest prime a Stockham stage handles itself (a stage of radix p costs
# p operations per element); lengths with a larger prime factor go through
# Bluestein's algorithm, three power-of-two FFTs of at least twice the length.
_LARGEST_RADIX = 31
_SIN_60, _COS_72, _SIN_72 = np.sin(np.pi / 3), np.cos(0.4 * np.pi), np.sin(0.4 * np.pi)
_COS_144, _SIN_144 = np.cos(0.8 * np.pi), np.sin(0.8 * np.pi)


@numba.njit(cache=True)
def _factors(n):
    """n's factors in the order the stages use them: 4s, a 2, then the odd
    primes ascending."""
    found = []
    while n % 4 == 0:
        found.append(4)
        n //= 4
    if n % 2 == 0:
        found.append(2)
        n //= 2
    p = 3
    while p * p <= n:
        while n % p == 0:
            found.append(p)
            n //= p
        p += 2
    if n > 1:
        found.append(n)
    out = np.empty(len(found), np.int64)
    for i in range(len(found)):
        out[i] = found[i]
    return out


@numba.njit(cache=True)
def _roots(n):
    """exp(-2 pi i k / n) for k < n, each from its own angle (no recurrence
    whose rounding errors would add up)."""
    out = np.empty(n, np.complex128)
    for k in range(n):
        angle = -2.0 * np.pi * k / n
        out[k] = complex(np.cos(angle), np.sin(angle))
    return out


@numba.njit(cache=True)
def _twiddled(value, roots, j):
    """value * exp(-2 pi i j / n); the first butterflies' roots are 1, whose
    product would turn an infinite part's 0 partner into NaN (pocketfft
    skips them too)."""
    return value if j == 0 else value * roots[j]


@numba.njit(cache=True)
def _scaled(z, c):
    """z * c for a real c, by parts (a complex product would make inf * 0)."""
    return complex(z.real * c, z.imag * c)


@numba.njit(cache=True)
def _minus_i(z):
    return complex(z.imag, -z.real)


@numba.njit(cache=True)
def _stockham(a, b, factors, roots):
    """The forward DFT of ``a`` (length n) in place; b is scratch of length n.
    Stage invariant: after transforms of length ``span``, the DFT of the
    subsequence a[r], a[r + rest], a[r + 2 rest], ... (rest = n / span) is at
    a[r + rest * k], k < span. A stage of radix p joins p such subsequences:
    butterfly (k, r) reads src[r + rest * (p * k + q)], q < p, and writes
    dst[r + rest * k + (n / p) * t], t < p."""
    n = a.shape[0]
    span = 1
    src, dst = a, b
    for p in factors:
        rest = n // (span * p)
        if p == 2:
            _radix2(src, dst, span, rest, roots)
        elif p == 3:
            _radix3(src, dst, span, rest, roots)
        elif p == 4:
            _radix4(src, dst, span, rest, roots)
        elif p == 5:
            _radix5(src, dst, span, rest, roots)
        else:
            _radix_any(src, dst, span, rest, p, roots)
        span *= p
        src, dst = dst, src
    if factors.shape[0] % 2:
        a[:] = b


@numba.njit(cache=True)
def _radix2(src, dst, span, rest, roots):
    step = rest * span
    for k in range(span):
        w1 = roots[rest * k]
        at, out = 2 * rest * k, rest * k
        for r in range(rest):
            x0, x1 = src[at + r], src[at + rest + r]
            if k:
                x1 = x1 * w1
            dst[out + r] = x0 + x1
            dst[out + step + r] = x0 - x1


@numba.njit(cache=True)
def _radix3(src, dst, span, rest, roots):
    step = rest * span
    for k in range(span):
        w1, w2 = roots[rest * k], roots[2 * rest * k]
        at, out = 3 * rest * k, rest * k
        for r in range(rest):
            x0, x1, x2 = src[at + r], src[at + rest + r], src[at + 2 * rest + r]
            if k:
                x1, x2 = x1 * w1, x2 * w2
            s12 = x1 + x2
            d12 = _minus_i(_scaled(x1 - x2, _SIN_60))
            mid = x0 - _scaled(s12, 0.5)
            dst[out + r] = x0 + s12
            dst[out + step + r] = mid + d12
            dst[out + 2 * step + r] = mid - d12


@numba.njit(cache=True)
def _radix4(src, dst, span, rest, roots):
    step = rest * span
    for k in range(span):
        w1, w2, w3 = roots[rest * k], roots[2 * rest * k], roots[3 * rest * k]
        at, out = 4 * rest * k, rest * k
        for r in range(rest):
            x0, x1 = src[at + r], src[at + rest + r]
            x2, x3 = src[at + 2 * rest + r], src[at + 3 * rest + r]
            if k:
                x1, x2, x3 = x1 * w1, x2 * w2, x3 * w3
            s02, d02 = x0 + x2, x0 - x2
            s13, d13 = x1 + x3, _minus_i(x1 - x3)
            dst[out + r] = s02 + s13
            dst[out + step + r] = d02 + d13
            dst[out + 2 * step + r] = s02 - s13
            dst[out + 3 * step + r] = d02 - d13


@numba.njit(cache=True)
def _radix5(src, dst, span, rest, roots):
    """y1, y4 = a1 -/+ i b1 and y2, y3 = a2 -/+ i b2, from the sums and
    differences of the inputs paired around the middle."""
    step = rest * span
    for k in range(span):
        w1, w2 = roots[rest * k], roots[2 * rest * k]
        w3, w4 = roots[3 * rest * k], roots[4 * rest * k]
        at, out = 5 * rest * k, rest * k
        for r in range(rest):
            x0, x1, x2 = src[at + r], src[at + rest + r], src[at + 2 * rest + r]
            x3, x4 = src[at + 3 * rest + r], src[at + 4 * rest + r]
            if k:
                x1, x2, x3, x4 = x1 * w1, x2 * w2, x3 * w3, x4 * w4
            t1, t2, t3, t4 = x1 + x4, x2 + x3, x1 - x4, x2 - x3
            a1 = x0 + _scaled(t1, _COS_72) + _scaled(t2, _COS_144)
            a2 = x0 + _scaled(t1, _COS_144) + _scaled(t2, _COS_72)
            b1 = _minus_i(_scaled(t3, _SIN_72) + _scaled(t4, _SIN_144))
            b2 = _minus_i(_scaled(t3, _SIN_144) - _scaled(t4, _SIN_72))
            dst[out + r] = x0 + t1 + t2
            dst[out + step + r] = a1 + b1
            dst[out + 2 * step + r] = a2 + b2
            dst[out + 3 * step + r] = a2 - b2
            dst[out + 4 * step + r] = a1 - b1


@numba.njit(cache=True)
def _radix_any(src, dst, span, rest, p, roots):
    """A direct DFT of radix p per butterfly (primes above 5)."""
    n = roots.shape[0]
    step = rest * span
    turn = n // p  # roots[turn * j] = exp(-2 pi i j / p)
    for k in range(span):
        for r in range(rest):
            at, out = r + p * rest * k, r + rest * k
            for t in range(p):
                total = 0j
                for q in range(p):
                    value = _twiddled(src[at + q * rest], roots, rest * k * q)
                    total += _twiddled(value, roots, turn * ((q * t) % p))
                dst[out + t * step] = total


@numba.njit(cache=True)
def _stages_suffice(n):
    """Whether no prime factor of n is above the largest radix."""
    factors = _factors(max(n, 1))
    return factors.shape[0] == 0 or factors[-1] <= _LARGEST_RADIX


@numba.njit(cache=True)
def plan(n, real):
    """What fft_into needs for lanes of length n: (factors, roots, chirp,
    filter, split), with a work array of 2 * len(roots). chirp and filter are
    empty unless the length needs Bluestein's algorithm, and then factors and
    roots are for its power of two. split is empty unless the lanes are
    ``real`` and of an even length: then they are transformed as complex
    lanes of half the length (factors and roots are for n / 2), which split
    takes apart."""
    empty = np.empty(0, np.complex128)
    if real and n % 2 == 0 and _stages_suffice(n // 2):
        return _factors(n // 2), _roots(n // 2), empty, empty, _roots(n)[:n // 2]
    if _stages_suffice(n):
        return _factors(n), _roots(n), empty, empty, empty
    m = 1
    while m < 2 * n - 1:
        m *= 2
    chirp = np.empty(n, np.complex128)
    for k in range(n):  # exp(-pi i k^2 / n), k^2 reduced mod 2n first to stay exact
        angle = -np.pi * ((k * k) % (2 * n)) / n
        chirp[k] = complex(np.cos(angle), np.sin(angle))
    kernel = np.zeros(m, np.complex128)
    for k in range(n):
        kernel[k] = np.conj(chirp[k])
        if k:
            kernel[m - k] = np.conj(chirp[k])
    factors, roots = _factors(m), _roots(m)
    _stockham(kernel, np.empty(m, np.complex128), factors, roots)
    for k in range(m):
        kernel[k] /= m
    return factors, roots, chirp, kernel, empty


@numba.njit(cache=True)
def fft_into(x, out, factors, roots, chirp, filt, split, work, inverse):
    """out = the unnormalised DFT of the lane x, real or complex (inverse:
    exponent +2 pi i jk/n, computed as conj(DFT(conj(x)))), by plan(len(x))."""
    n = x.shape[0]
    if n == 0:
        return
    m = roots.shape[0]
    a, b = work[:m], work[m:]
    sign = -1.0 if inverse else 1.0
    if split.shape[0]:
        _real_fft(x, out, factors, roots, split, a, b, sign)
        return
    if chirp.shape[0] == 0:
        for j in range(n):
            v = complex(x[j])
            a[j] = complex(v.real, sign * v.imag)
        _stockham(a, b, factors, roots)
        for k in range(n):
            out[k] = complex(a[k].real, sign * a[k].imag)
        return
    for j in range(n):  # Bluestein: x * chirp, convolved with conj(chirp), times chirp
        v = complex(x[j])
        a[j] = complex(v.real, sign * v.imag) * chirp[j]
    a[n:] = 0
    _stockham(a, b, factors, roots)
    for k in range(m):
        a[k] = np.conj(a[k] * filt[k])  # the inverse DFT, as conj(DFT(conj))
    _stockham(a, b, factors, roots)
    for k in range(n):
        v = np.conj(a[k]) * chirp[k]
        out[k] = complex(v.real, sign * v.imag)


@numba.njit(cache=True)
def _real_fft(x, out, factors, roots, split, a, b, sign):
    """The DFT of a real lane of even length n as one of n / 2 complex values
    z = x[0::2] + 1j x[1::2]: with Z its DFT, the even samples' DFT is
    (Z[k] + conj(Z[-k])) / 2, the odd samples' (Z[k] - conj(Z[-k])) / 2j, and
    X[k] = even + exp(-2 pi i k / n) odd; X[n - k] = conj(X[k])."""
    half = a.shape[0]
    for j in range(half):
        a[j] = complex(x[2 * j].real, x[2 * j + 1].real)  # (x is real here)
    _stockham(a, b, factors, roots)
    z0 = a[0]
    out[0] = complex(z0.real + z0.imag, 0.0)
    out[half] = complex(z0.real - z0.imag, 0.0)
    for k in range(1, half):
        zk, zc = a[k], np.conj(a[half - k])
        even = _scaled(zk + zc, 0.5)
        odd = _minus_i(_scaled(zk - zc, 0.5))
        v = even + odd * split[k]
        out[k] = complex(v.real, sign * v.imag)
        out[2 * half - k] = complex(v.real, -sign * v.imag)
