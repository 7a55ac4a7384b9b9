"""Complex arithmetic as NumPy computes it, for generated code (``cm.``).

numba's complex operations follow CPython's cmath: division divides by the
denominator and raises on zero, powers use one formula for every exponent,
tanh, exp, sinh and cosh make NaN where an overflow meets a zero. NumPy's
loops (and the C library they call) differ in the last bits and at special
values; these helpers follow NumPy's formulas. Sums follow NumPy's pairwise
order for complex values, whose tree splits differently from float sums'.
sqrt, exp, the trigonometric and hyperbolic functions, their inverses and
the general power are the C library's own (libm_complex.py), where jitaic
can call it; elsewhere numba's formulas, with C99's special values where they
are known to differ.
"""

from __future__ import annotations

import numba
import numpy as np

from jitaic.ir.ops.elementwise import C_COMPLEX_CALLS
from jitaic.lower.vecmath import inlined_helper, muladd


@inlined_helper
def multiply(a, b):
    """a * b as NumPy's complex loops multiply: each part one multiply-add
    (fused where the CPU has FMA, as NumPy's vectorised loops are), so
    (ar*br - ai*bi) rounds once. numba's (and NumPy's scalar operator's)
    rounds the two products apart: the last bit differs for about 40% of
    values, and the sign of a zero real part where a product underflows."""
    return complex(muladd(a.real, b.real, -(a.imag * b.imag)),
                   muladd(a.real, b.imag, a.imag * b.real))


@inlined_helper
def divide(a, b):
    """a / b as NumPy's complex loops divide (Smith's method, scaled by a
    reciprocal), in the parts' precision: numba's division follows
    CPython's, which divides by the denominator (last-bit differences) and
    raises on zero (NumPy: inf and nan)."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    one = br ** 0  # 1 in the parts' type: complex64 stays in float32
    if abs(br) >= abs(bi):
        if br == 0 and bi == 0:
            return complex(ar / abs(br), ai / abs(br))
        rat = bi / br
        scl = one / (br + bi * rat)
        return complex((ar + ai * rat) * scl, (ai - ar * rat) * scl)
    rat = br / bi
    scl = one / (bi + br * rat)
    return complex((ar * rat + ai) * scl, (ai * rat - ar) * scl)


@inlined_helper
def reciprocal(z):
    """1 / z as NumPy's reciprocal loop computes it (not its division's)."""
    zr, zi = z.real, z.imag
    if abs(zi) <= abs(zr):
        r = zi / zr
        d = zr + zi * r
        return complex(1 / d, -r / d) * (zr ** 0)
    r = zr / zi
    d = zr * r + zi
    return complex(r / d, -1 / d) * (zr ** 0)


@numba.njit(cache=True)
def power(a, b):
    """a ** b as NumPy's complex power loop: 1 for a zero exponent, 0 or NaN
    for a zero base, products for integer exponents below 100 (z ** 2 is
    z * z exactly; a negative one divides 1 by them) and the C library's
    cpow otherwise."""
    one = a ** 0  # 1 in a's type
    if b.real == 0 and b.imag == 0:
        return one
    if a.real == 0 and a.imag == 0:
        return one * 0 if b.real > 0 else one * np.nan
    n = int(b.real) if b.imag == 0 and abs(b.real) < 100 else 0
    if n == 0 or n != b.real:
        return cpow(a, b)
    if n == 1:
        return a
    if n == 2:
        return a * a
    if n == 3:
        return a * (a * a)
    k, mask = abs(n), 1
    result, p = one, a
    while True:
        if k & mask:
            result = result * p
        mask <<= 1
        if k < mask:
            break
        p = p * p
    return result if n > 0 else divide(one, result)


@inlined_helper
def tanh(z, limit, eps, tiny):
    """tanh as the C library computes it (NumPy calls ctanh): its special
    values, its formula sinh(x) cosh(x) / (sinh(x)^2 + cos(y)^2), and beyond
    ``limit`` (where cosh overflows the parts' type) +-1 with a vanishing
    imaginary part; numba's formula differs in the last bits and gives NaN
    for large x. ``eps``, ``tiny``: the parts' epsilon and smallest normal."""
    x, y = z.real, z.imag
    one = x ** 0  # 1 in the parts' type
    two = one + one
    if not (np.isfinite(x) and np.isfinite(y)):
        if np.isinf(x):
            imag = np.copysign(0.0, np.sin(two * y)) if np.isfinite(y) else np.copysign(0.0, y)
            return complex(np.copysign(one, x), imag)
        if x == 0:
            return complex(x, np.nan)
        return complex(np.nan, y if y == 0 else np.nan)
    sin_y, cos_y = np.sin(y), np.cos(y)
    if abs(x) > limit:
        imag = two * two * sin_y * cos_y / np.exp(two * limit)
        rest = abs(x) - limit
        imag = imag / np.exp(two * limit) if rest > limit else imag / np.exp(two * rest)
        return complex(np.copysign(one, x), imag)
    sinh_x, cosh_x = (np.sinh(x), np.cosh(x)) if abs(x) > tiny else (x, one)
    den = sinh_x * sinh_x + cos_y * cos_y if abs(sinh_x) > abs(cos_y) * eps else cos_y * cos_y
    return complex(sinh_x * cosh_x / den, sin_y * cos_y / den)


@inlined_helper
def _c99_exp(z):
    """exp with C99's exp(x) + i0 for a zero imaginary part (numba's gives
    inf * 0 = NaN where exp(x) overflows)."""
    if z.imag == 0:
        return complex(np.exp(z.real), z.imag)
    return np.exp(z)


@inlined_helper
def _c99_sinh(z):
    """sinh with C99's values for a zero imaginary part, and for a zero real
    part with an infinite or NaN imaginary one (numba's formula: NaN)."""
    if z.imag == 0:
        return complex(np.sinh(z.real), z.imag)
    if z.real == 0 and not np.isfinite(z.imag):
        return complex(z.real, np.nan)
    return np.sinh(z)


@inlined_helper
def _c99_cosh(z):
    """cosh with C99's values, as sinh."""
    if z.imag == 0:  # the imaginary part: sinh(x) * (+-0), a zero of their sign
        return complex(np.cosh(z.real), np.copysign(0.0, z.real) * np.copysign(1.0, z.imag))
    if z.real == 0 and not np.isfinite(z.imag):
        return complex(np.nan, 0.0 * z.real)
    return np.cosh(z)


@inlined_helper
def _numba_sqrt(z):
    return np.sqrt(z)


@inlined_helper
def _numba_sin(z):
    return np.sin(z)


@inlined_helper
def _numba_cos(z):
    return np.cos(z)


@inlined_helper
def _numba_tan(z):
    return np.tan(z)


@inlined_helper
def _numba_power(a, b):
    return a ** b


if C_COMPLEX_CALLS:  # the C library's own: NumPy's bit for bit
    from jitaic.lower.libm_complex import (  # noqa: F401  (cm.arcsin ...)
        arccos,
        arccosh,
        arcsin,
        arcsinh,
        arctan,
        arctanh,
        cos,
        cosh,
        cpow,
        exp,
        sin,
        sinh,
        sqrt,
        tan,
    )
else:  # numba's formulas (the inverse functions refuse complex values there)
    exp, sinh, cosh = _c99_exp, _c99_sinh, _c99_cosh
    sqrt, sin, cos, tan, cpow = _numba_sqrt, _numba_sin, _numba_cos, _numba_tan, _numba_power


# log as the C library's clog computes it (NumPy calls it): the real part
# log|z| by log1p of |z|^2 - 1 where |z| is near 1 (|z|^2 - 1 with the squares'
# rounding errors kept, for complex128), log of the hypot elsewhere, scaled
# at the ends of the range; checked bit for bit against NumPy on 600,000
# values (random, near |z| = 1, all magnitudes) and every special pair, in
# complex128 and complex64. numba's np.log differed in half of those near 1.
_SPLIT = 134217729.0  # 2^27 + 1: Veltkamp's split of a float64
_D, _F = np.finfo(np.float64), np.finfo(np.float32)  # (numba freezes globals)
_D_HALF_MAX, _D_TWO_TINY, _D_EPS = _D.max / 2, _D.tiny * 2, _D.eps
_F_HALF_MAX, _F_TWO_TINY, _F_EPS = _F.max / 2, _F.tiny * 2, _F.eps
_D_TINY, _F_TINY = _D.tiny, _F.tiny
_LN2 = np.log(2.0)


@inlined_helper
def _mul_split(a, b):
    """a * b as (rounded product, its exact rounding error): Dekker's product."""
    hi = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    c = _SPLIT * b
    bh = c - (c - b)
    al, bl = a - ah, b - bh
    return hi, ((ah * bh - hi) + ah * bl + al * bh) + al * bl


@inlined_helper
def _add_split(a, b):
    """a + b as (rounded sum, its error), for |a| >= |b|."""
    hi = a + b
    return hi, (a - hi) + b


@inlined_helper
def _smaller_first(a, b):
    return (b, a) if abs(b) < abs(a) else (a, b)


@numba.njit(cache=True)
def _x2y2m1(x, y):
    """x * x + y * y - 1 for 0.5 <= x < 1: the squares split into value and
    error, the five terms summed smallest first with each sum's error kept."""
    v1, v0 = _mul_split(x, x)
    v3, v2 = _mul_split(y, y)
    v4 = -1.0
    v0, v1 = _smaller_first(v0, v1)  # sort the five by magnitude
    v1, v2 = _smaller_first(v1, v2)
    v0, v1 = _smaller_first(v0, v1)
    v2, v3 = _smaller_first(v2, v3)
    v1, v2 = _smaller_first(v1, v2)
    v0, v1 = _smaller_first(v0, v1)
    v3, v4 = _smaller_first(v3, v4)
    v2, v3 = _smaller_first(v2, v3)
    v1, v2 = _smaller_first(v1, v2)
    v0, v1 = _smaller_first(v0, v1)
    v1, v0 = _add_split(v1, v0)  # fold each into the next, keeping them sorted
    v1, v2 = _smaller_first(v1, v2)
    v2, v3 = _smaller_first(v2, v3)
    v3, v4 = _smaller_first(v3, v4)
    v2, v1 = _add_split(v2, v1)
    v2, v3 = _smaller_first(v2, v3)
    v3, v4 = _smaller_first(v3, v4)
    v3, v2 = _add_split(v3, v2)
    v3, v4 = _smaller_first(v3, v4)
    v4, v3 = _add_split(v4, v3)
    return v4 + v3 + v2 + v1 + v0


@inlined_helper
def _log_special(re, im):
    """clog at 0 (-inf, the argument) and where a part is NaN."""
    if re == 0 and im == 0:
        return complex(-np.inf, np.copysign(np.pi if np.signbit(re) else 0.0, im))
    return complex(np.inf if np.isinf(re) or np.isinf(im) else np.nan, np.nan)


@numba.njit(cache=True)
def log(z):
    """log of a complex128 value, as glibc's clog."""
    re, im = z.real, z.imag
    if (re == 0 and im == 0) or re != re or im != im:
        return _log_special(re, im)
    absx, absy = max(abs(re), abs(im)), min(abs(re), abs(im))
    scale = 0
    if absx > _D_HALF_MAX:
        scale = -1
        absy = np.ldexp(absy, -1) if absy >= _D_TWO_TINY else 0.0
        absx = np.ldexp(absx, -1)
    elif absx < _D_TINY:  # both below the smallest normal
        scale = 53
        absx, absy = np.ldexp(absx, 53), np.ldexp(absy, 53)
    if scale == 0 and absx == 1:
        real = np.log1p(absy * absy) / 2
    elif scale == 0 and 1 < absx < 2 and absy < 1:
        d2m1 = (absx - 1) * (absx + 1)
        if absy >= _D_EPS:
            d2m1 += absy * absy
        real = np.log1p(d2m1) / 2
    elif scale == 0 and 0.5 <= absx < 1 and absy < _D_EPS / 2:
        real = np.log1p((absx - 1) * (absx + 1)) / 2
    elif scale == 0 and 0.5 <= absx < 1 and absx * absx + absy * absy >= 0.5:
        real = np.log1p(_x2y2m1(absx, absy)) / 2
    else:
        real = np.log(np.hypot(absx, absy)) - scale * _LN2
    return complex(real, np.arctan2(im, re))


_f32 = np.float32


@numba.njit(cache=True)
def logf(z):
    """log of a complex64 value, as glibc's clogf: in float32, except |z|^2 - 1
    near |z| = 1, which it computes in float64."""
    re, im = z.real, z.imag
    if (re == 0 and im == 0) or re != re or im != im:
        return _log_special(re, im)
    one, two, half = _f32(1.0), _f32(2.0), _f32(0.5)
    absx, absy = max(abs(re), abs(im)), min(abs(re), abs(im))
    scale = 0
    if absx > _f32(_F_HALF_MAX):
        scale = -1
        absy = np.ldexp(absy, -1) if absy >= _f32(_F_TWO_TINY) else _f32(0.0)
        absx = np.ldexp(absx, -1)
    elif absx < _f32(_F_TINY):  # both below the smallest normal
        scale = 24
        absx, absy = np.ldexp(absx, 24), np.ldexp(absy, 24)
    if scale == 0 and absx == one:
        real = np.log1p(absy * absy) / two
    elif scale == 0 and one < absx < two and absy < one:
        d2m1 = (absx - one) * (absx + one)
        if absy >= _f32(_F_EPS):
            d2m1 += absy * absy
        real = np.log1p(d2m1) / two
    elif scale == 0 and half <= absx < one and absy < _f32(_F_EPS / 2):
        real = np.log1p((absx - one) * (absx + one)) / two
    elif scale == 0 and half <= absx < one and absx * absx + absy * absy >= half:
        x, y = np.float64(absx), np.float64(absy)
        real = np.log1p(_f32((x - 1) * (x + 1) + y * y)) / two
    else:
        real = np.log(np.hypot(absx, absy)) - _f32(scale) * _f32(_LN2)
    return complex(real, np.arctan2(im, re))


@inlined_helper
def log1p(z, one):
    """log(1 + z) as NumPy's complex loop: log of the hypot of (re + 1, im)
    and its angle (``one``: 1 in the parts' type, so complex64 stays float32)."""
    x1 = z.real + one
    return complex(np.log(np.hypot(x1, z.imag)), np.arctan2(z.imag, x1))


@inlined_helper
def expm1(z, two):
    """exp(z) - 1 as NumPy's complex loop: expm1(re) cos(im) - 2 sin(im/2)^2,
    and exp(re) sin(im) (``two``: 2 in the parts' type)."""
    x, y = z.real, z.imag
    s = np.sin(y / two)
    return complex(np.expm1(x) * np.cos(y) - two * s * s, np.exp(x) * np.sin(y))


@inlined_helper
def scaled(z, c):
    """Both parts of ``z`` times the real ``c`` (a complex times a real in
    complex arithmetic would make NaN of an infinite part times 0)."""
    return complex(z.real * c, z.imag * c)


@inlined_helper
def rint(z):
    """NumPy's rint of a complex value: each part rounded half to even."""
    return complex(np.rint(z.real), np.rint(z.imag))


@inlined_helper
def sign(z):
    """NumPy's sign of a complex value: the parts divided by their hypot (in
    the parts' precision). Where the hypot is infinite (an infinite part, or
    an overflow) the direction of the real part if it is infinite (NaN if
    both are), else of the imaginary part; 0 for 0. Checked against NumPy at
    every pair of special values and overflowing ones, and on 5,000 values
    of all magnitudes, complex128 and complex64."""
    x, y = z.real, z.imag
    r = np.hypot(x, y)
    if np.isinf(r):
        if np.isinf(x):
            return complex(np.nan, np.nan) if np.isinf(y) else complex(np.copysign(1.0, x), 0.0)
        return complex(0.0, np.copysign(1.0, y))
    if r == 0:
        return complex(0.0, 0.0)
    return complex(x / r, y / r)


# NumPy orders complex values by real part, then imaginary part. A NaN in
# either imaginary part makes the real-part test false; maximum and minimum
# return the first operand on ties and propagate NaN from either, fmax/fmin
# prefer the operand that is not NaN (checked against NumPy at every pair of
# special values).
@inlined_helper
def less(a, b):
    return ((a.real < b.real and a.imag == a.imag and b.imag == b.imag)
            or (a.real == b.real and a.imag < b.imag))


@inlined_helper
def less_equal(a, b):
    return ((a.real < b.real and a.imag == a.imag and b.imag == b.imag)
            or (a.real == b.real and a.imag <= b.imag))


@inlined_helper
def isnan(z):
    return z.real != z.real or z.imag != z.imag


@inlined_helper
def maximum(a, b):
    return a if less_equal(b, a) or isnan(a) else b


@inlined_helper
def minimum(a, b):
    return a if less_equal(a, b) or isnan(a) else b


@inlined_helper
def fmax(a, b):
    return a if less_equal(b, a) or isnan(b) else b


@inlined_helper
def fmin(a, b):
    return a if less_equal(a, b) or isnan(b) else b


@inlined_helper
def _complex_block(a, start, n, zero):
    """NumPy's complex pairwise sum of a block of up to 64 elements: its eight
    float accumulators are four complex lanes (elements i, i + 4, ...)."""
    if n < 4:
        res = zero
        for i in range(start, start + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    i = 4
    while i < n - n % 4:
        p = start + i
        r0 += a[p]
        r1 += a[p + 1]
        r2 += a[p + 2]
        r3 += a[p + 3]
        i += 4
    res = (r0 + r1) + (r2 + r3)
    for j in range(i, n):
        res += a[start + j]
    return res


@numba.njit(cache=True)
def pairwise_sum(a, start, n, zero):
    """NumPy's pairwise sum of complex ``a[start:start + n]``, addition for
    addition: NumPy sums the interleaved parts as one float array of 2n, so
    its blocks hold 64 elements and its halves split at (n - n % 8) // 2.
    The recursion walks an explicit stack (numba's on-disk cache cannot
    reload a recursive function)."""
    start = max(start, 0)
    if n <= 64:
        return _complex_block(a, start, n, zero)
    starts = np.empty(64, np.int64)
    lengths = np.empty(64, np.int64)
    stages = np.zeros(64, np.int8)  # 0: new, 1: left child running, 2: right child running
    sums = np.empty(64, a.dtype)  # finished children, left before right
    starts[0], lengths[0] = start, n
    depth, done = 1, 0
    while depth:
        top = depth - 1
        m = lengths[top]
        half = (m - m % 8) // 2
        if m <= 64:
            sums[done] = _complex_block(a, starts[top], m, zero)
            done += 1
            depth -= 1
        elif stages[top] == 2:
            sums[done - 2] = sums[done - 2] + sums[done - 1]
            done -= 1
            depth -= 1
        else:
            first = starts[top] + (half if stages[top] == 1 else 0)
            starts[depth] = first
            lengths[depth] = half if stages[top] == 0 else m - half
            stages[depth] = 0
            stages[top] += 1
            depth += 1
    return sums[0]


@inlined_helper
def absolute(z, one, inf):
    """|z| as NumPy's vectorised loop computes it: the larger part times
    sqrt(1 + (smaller / larger) ** 2), with one multiply-add (fused where
    the CPU has FMA, as NumPy's); inf where a part is infinite, NaN where one
    is NaN. numba's abs (the C library's hypot) differs from it in the last
    bit for a third of all values, and does not vectorise."""
    re, im = abs(z.real), abs(z.imag)
    larger = re if re >= im else im
    smaller = im if re >= im else re
    ratio = smaller / (larger if larger != 0 else one)
    magnitude = larger * np.sqrt(muladd(ratio, ratio, one))
    return inf if re == inf or im == inf else magnitude


@inlined_helper
def magnitude_compare(z, below, above, c, one, inf, order):
    """``absolute(z) < c`` (order 0; 1: <=, 2: >, 3: >=) as NumPy decides it,
    computing |z| only where re**2 + im**2 (in float64) is within [below,
    above], a band around c**2 wider than both roundings (the caller's): an
    escape-time loop's test costs a division and a square root otherwise.
    NaN parts fall in no side, so |z| (inf for an infinite part) decides."""
    re, im = np.float64(z.real), np.float64(z.imag)
    squared = re * re + im * im
    if squared < below:
        return order < 2
    if squared > above:
        return order >= 2
    m = absolute(z, one, inf)
    return m < c if order == 0 else m <= c if order == 1 else m > c if order == 2 else m >= c

