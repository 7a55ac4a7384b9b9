"""Vectorisable scalar exp, expm1, log, log1p, tanh, pow, arctan, arctan2,
arcsin, arccos (and float32 sin and cos) for numba loops.

``np.exp(x[i])`` inside a numba loop is a call to the scalar C library, and
LLVM does not vectorise a loop that calls an opaque function. The functions
here are built only from operations LLVM can vectorise - add, multiply,
``llvm.fmuladd``, divide, compare, ``select``, integer ops and bitcasts - so
``for i in range(n): out[i] = exp_f64(x[i])`` compiles to SIMD code (4 doubles
or 8 floats per AVX2 instruction). There are no branches: every path is
computed and the result picked with a select; special inputs are handled the
same way. They are ``inlined_helper`` functions: compiled once per
installation (numba's cache) and marked for LLVM to inline, so callers get
the code in their own loop body (see ``inlined_helper``).

Method - range reduction and a polynomial; the coefficients are our own
minimax fits (Remez exchange in 200-bit arithmetic, relative error):

* exp: n = rint(x/ln2) by the 1.5*2**52 addition trick, r = x - n*ln2 in two
  parts (Cody-Waite: ln2_hi has 32 significant bits, so n*ln2_hi and
  x - n*ln2_hi are exact) plus rl, the rounding error of r. expm1(r) =
  r + r*r*P(r), P of degree 10 (2**-59.7) on |r| <= ln2/2, then
  exp = 2**n1 * 2**n2 * (1 + expm1(r)) with n1 + n2 = n: each power of two is
  built from exponent bits and stays normal, and the last multiply is the one
  rounding into overflow (inf) or the subnormal range, as in libm.
* expm1: 2**n*expm1(r) + (2**n - 1) in one fused multiply-add; for n = 1
  (where 2*exp(r) - 1 cancels two bits) 2r + 1 is formed exactly first. For
  n > 512 a factor 2**(n/2) is applied afterwards.
* log: subnormals are scaled by 2**52; x = 2**k * (1 + f) with 1 + f in
  [sqrt(1/2), sqrt(2)) read from the bits; s = f/(2 + f) and
  log(1 + f) = 2 atanh(s) = f - (f*f/2 - s*(f*f/2 + s*s*T(s*s))), T of
  degree 6 (2**-57.6); + k*ln2 in two parts.
* log1p: the same on u = 1 + x, plus c/u where c = 1 + x - u is exact
  (Fast2Sum), which keeps full relative accuracy for tiny x.
* tanh: e = expm1(2|x|) as a double-word sum, tanh = e/(e + 2) with the
  denominator also double-word and one Newton correction of the quotient;
  copysign puts the sign back. |x| is clamped at 20, past which tanh rounds
  to 1 (this also maps inf to 1).
* pow (float64): log|x| as a double-word (s = f/(2 + f) as sh + sl, the
  2s and (2/3)s**3 terms double-word, s**5 U(s*s) in double; relative error
  about 2**-66), z = y*log|x| as zh + zl, and exp(zh + zl) with zl added to
  the reduced argument's low part: a one-word log would cost up to
  |z|*2**-53 in the exponent, hundreds of ulp near overflow. The special
  cases of C99 Annex F (pow(x, +-0) = 1, pow(1, NaN) = 1, odd integer y
  keeping the sign of x, x < 0 with non-integer y = NaN, +-inf, +-0) are
  selects on x and y. float32 pow computes in float64 with short
  polynomials (float32 needs a result within 2**-28 before its rounding),
  and shares float64's special cases (widening float32 is exact).
* sin, cos (float32): see the section's comment (an exact table-driven
  reduction in float64, then Taylor polynomials).
* arctan, arctan2, arcsin, arccos: one kernel, atan(t) = t + t**3 Q(t*t) on
  [0, 1] (Q of degree 20, 2**-57.9; float32: degree 10 in float64), reached
  through min/max quotients and sqrt(1 - x*x); see the section's comment.
* float32: the same algorithms in float32 arithmetic (8 lanes) with float32
  fits - P of degree 4 (2**-25.3), T of degree 2 (2**-28.5), ln2_hi of 16 bits.

Special values match NumPy bit for bit: +-inf, NaN -> NaN, signed zeros kept
where NumPy keeps them (expm1, log1p, tanh; log(+-0) = -inf), log(x < 0) and
log1p(x < -1) = NaN, log1p(-1) = -inf, overflow to inf, gradual underflow to
subnormals and 0, tanh(+-large) = +-1. (NaN results are NaN; their sign bit
and payload may differ from NumPy's, which are not consistent themselves.)

Measured (benchmarks/vecmath_accuracy.py: 10 million points per row - random
bit patterns, log-uniform over the whole range, near 0 and the delicate
region - on AVX2 + FMA): max ulp against the correctly rounded result / max
ulp against NumPy, with no kind mismatch (NaN/inf/zero/subnormal/sign)::

    function   float64        float32
    exp        1 / 1          1 / 3   (NumPy's float32 SIMD exp is 2 ulp off)
    expm1      1 / 1          1 / 1
    log        1 / 1          1 / 4   (NumPy's float32 SIMD log is 3 ulp off)
    log1p      1 / 1          1 / 1
    tanh       1 / 2          1 / 1
    pow        1 / 1          1 / 1
    sin, cos   -              1 / 1   (float64: libm)
    arctan     1 / 1          1 / 2   (NumPy's float32 SIMD versions are
    arctan2    1 / 1          1 / 3    2-3 ulp off)
    arcsin     2 / 2          1 / 3
    arccos     2 / 2          1 / 2

Without FMA hardware ``llvm.fmuladd`` is a multiply and an add; the
reductions do not rely on fusion, and the error stays within 2 ulp (tanh;
the rest 1 ulp), measured on an x86-64-v2 target. pow's double-word products
need an exact a*b - fl(a*b): they use ``llvm.fma``, a libm call there
(correct, not vectorised).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["exp_f64", "exp_f32", "expm1_f64", "expm1_f32", "log_f64", "log_f32",
           "log1p_f64", "log1p_f32", "tanh_f64", "tanh_f32", "pow_f64",
           "pow_f32", "sin_f32", "cos_f32", "arctan_f64", "arctan_f32", "arctan2_f64",
           "arctan2_f32", "arcsin_f64", "arcsin_f32", "arccos_f64", "arccos_f32",
           "VECTOR_MATH", "muladd"]


# --- LLVM helpers ----------------------------------------------------------------
# Intrinsics lower to single LLVM instructions whatever the caller's error
# model (numba's ``/`` under error_model="python" tests for zero and may raise,
# which stops vectorisation), keep integer work in the float's width (numba
# widens int32 arithmetic to int64), and are cheap to compile.

_LL = {types.float64: ir.DoubleType(), types.float32: ir.FloatType()}
_INT = {types.float64: ir.IntType(64), types.float32: ir.IntType(32)}
_SUFFIX = {types.float64: "f64", types.float32: "f32"}


def _llvm_intrinsic(builder, name, fty, args):
    t = _LL[fty]
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(t, [t] * len(args)),
                                        f"llvm.{name}.{_SUFFIX[fty]}")
    return builder.call(fn, args)


@intrinsic
def _fma(typingctx, a, b, c):
    """a*b + c, fused where the CPU has FMA (llvm.fmuladd never calls libm)."""
    if not (a == b == c and a in _LL):
        return None
    return a(a, a, a), lambda ctx, builder, sig, args: _llvm_intrinsic(builder, "fmuladd",
                                                                       a, args)


muladd = _fma  # (for lower/complexmath.py: NumPy's vectorised loops' npyv_muladd)


@intrinsic
def _fma_exact(typingctx, a, b, c):
    """a*b + c with one rounding always (llvm.fma: one instruction on FMA
    hardware, a libm call elsewhere): a*b - fl(a*b) is then exact."""
    if not (a == b == c and a in _LL):
        return None
    return a(a, a, a), lambda ctx, builder, sig, args: _llvm_intrinsic(builder, "fma", a, args)


@intrinsic
def _horner(typingctx, x, coeffs):
    """coeffs[0] + x*(coeffs[1] + x*(...)) with fmuladd; coeffs a float tuple."""
    if not (x in _LL and isinstance(coeffs, types.UniTuple) and coeffs.dtype == x):
        return None

    def codegen(ctx, builder, sig, args):
        xv, cs = args
        acc = builder.extract_value(cs, coeffs.count - 1)
        for i in range(coeffs.count - 2, -1, -1):
            acc = _llvm_intrinsic(builder, "fmuladd", x,
                                  [acc, xv, builder.extract_value(cs, i)])
        return acc
    return x(x, coeffs), codegen


@intrinsic
def _div(typingctx, a, b):
    """IEEE a / b with no zero check."""
    if not (a == b and a in _LL):
        return None
    return a(a, a), lambda ctx, builder, sig, args: builder.fdiv(*args)


@intrinsic
def _fabs(typingctx, a):
    if a not in _LL:
        return None
    return a(a), lambda ctx, builder, sig, args: _llvm_intrinsic(builder, "fabs", a, args)


@intrinsic
def _floor(typingctx, a):
    """Round toward -inf (one roundpd; numba's math.floor returns an int)."""
    if a not in _LL:
        return None
    return a(a), lambda ctx, builder, sig, args: _llvm_intrinsic(builder, "floor", a, args)


@intrinsic
def _copysign(typingctx, a, b):
    """|a| with the sign bit of b."""
    if not (a == b and a in _LL):
        return None
    return a(a, a), lambda ctx, builder, sig, args: _llvm_intrinsic(builder, "copysign",
                                                                    a, args)


@intrinsic
def _select(typingctx, cond, a, b):
    """``a if cond else b`` as one LLVM select (both sides already computed)."""
    if not (isinstance(cond, types.Boolean) and a == b):
        return None
    return a(cond, a, b), lambda ctx, builder, sig, args: builder.select(*args)


# x + 1.5*2**(p-1) lands in a binade whose ulp is 1, so the addition rounds x to
# an integer (ties to even, as no fastmath is in play) and leaves that integer
# in the low mantissa bits.
_MAGIC = {types.float64: 6755399441055744.0, types.float32: 12582912.0}
_MAGIC_BITS = {types.float64: 0x4338000000000000, types.float32: 0x4B400000}
_MANTISSA_BITS = {types.float64: 52, types.float32: 23}
_EXPONENT_BIAS = {types.float64: 1023, types.float32: 127}


def _as_integer(builder, n, ty):
    """The integer-valued float ``n`` as an integer of its width: the bits of
    n + magic, less the magic's (no float->int conversion, which AVX2 lacks
    for int64)."""
    t = builder.fadd(n, ir.Constant(_LL[ty], _MAGIC[ty]))
    return builder.sub(builder.bitcast(t, _INT[ty]), ir.Constant(_INT[ty], _MAGIC_BITS[ty]))


@intrinsic
def _rint(typingctx, x):
    """Nearest integer (ties to even) of |x| < 2**51 (float64) / 2**22 (float32)."""
    if x not in _LL:
        return None

    def codegen(ctx, builder, sig, args):
        m = ir.Constant(_LL[x], _MAGIC[x])
        return builder.fsub(builder.fadd(args[0], m), m)
    return x(x), codegen


@intrinsic
def _pow2(typingctx, n):
    """2.0**n for an integer-valued float n in the normal exponent range: n's
    integer (``_as_integer``) written into the exponent field."""
    if n not in _LL:
        return None
    it = _INT[n]

    def codegen(ctx, builder, sig, args):
        k = builder.add(_as_integer(builder, args[0], n), ir.Constant(it, _EXPONENT_BIAS[n]))
        return builder.bitcast(builder.shl(k, ir.Constant(it, _MANTISSA_BITS[n])), _LL[n])
    return n(n), codegen


@intrinsic
def _scale2(typingctx, p, n):
    """p * 2.0**n for an integer-valued float n (|n| < 1024 above the normal
    exponent range), as two exact-or-rounding-once multiplies by 2**floor(n/2)
    and 2**ceil(n/2), both normal powers of two: subnormal and overflowing
    results round once, as a single scaling would.

    The halves come from n's integer bits (read through the magic number),
    shifted logically after an offset that makes them non-negative (AVX2 has
    no 64-bit arithmetic shift): 10 instructions where rint(n/2) and two
    _pow2 took 14 (exp is ~40)."""
    if not (p == n and p in _LL):
        return None
    it = _INT[n]
    mant, bias = _MANTISSA_BITS[n], _EXPONENT_BIAS[n]
    offset = 2048 if n == types.float64 else 256  # > |n|: n + offset >= 0

    def codegen(ctx, builder, sig, args):
        def const(v):
            return ir.Constant(it, v)
        k = _as_integer(builder, args[1], n)
        half = builder.lshr(builder.add(k, const(offset)), const(1))     # floor(n/2) + offset/2
        low = builder.add(half, const(bias - offset // 2))               # floor(n/2) + bias
        high = builder.sub(k, builder.sub(low, const(2 * bias)))         # ceil(n/2) + bias
        scale = [builder.bitcast(builder.shl(e, const(mant)), _LL[n]) for e in (low, high)]
        return builder.fmul(builder.fmul(args[0], scale[0]), scale[1])
    return p(p, n), codegen


@intrinsic
def _log_split(typingctx, x):
    """Normal x > 0 -> (k, f) with x = 2**k * (1 + f), 1 + f in [sqrt(1/2), sqrt(2)).

    Subtracting the bits of sqrt(1/2) makes the exponent field roll over at
    sqrt(2) rather than at 2; k is the arithmetic shift of that, and removing
    k from the exponent leaves 1 + f. k becomes a float via the magic number.
    """
    if x not in _LL:
        return None
    rtype = types.UniTuple(x, 2)
    it, ft = _INT[x], _LL[x]
    mant, magic_bits = _MANTISSA_BITS[x], _MAGIC_BITS[x]
    sqrt_half = 0x3FE6A09E667F3BCD if x == types.float64 else 0x3F3504F3

    def codegen(ctx, builder, sig, args):
        ix = builder.bitcast(args[0], it)
        tmp = builder.sub(ix, ir.Constant(it, sqrt_half))
        k = builder.ashr(tmp, ir.Constant(it, mant))
        kf = builder.fsub(builder.bitcast(builder.add(k, ir.Constant(it, magic_bits)), ft),
                          ir.Constant(ft, _MAGIC[x]))
        m = builder.sub(ix, builder.and_(tmp, ir.Constant(it, -(1 << mant))))
        f = builder.fsub(builder.bitcast(m, ft), ir.Constant(ft, 1.0))
        return ctx.make_tuple(builder, rtype, [kf, f])
    return rtype(x), codegen


# Helpers generated code calls in its element loops. Each is compiled once per
# installation and signature (numba's cache) and carries LLVM's alwaysinline
# (numba's forceinline flag), so LLVM inlines it into the caller's loop,
# which it then vectorises. numba's own inline="always" inlines at the level of
# its IR instead: every call site typed and lowered the helper's whole body
# again, 0.1-0.6 s per function that calls exp, tanh or pow (a third of the
# cold first calls of benchmarks/bench_compile.py). The numpy error model
# keeps division by zero an IEEE result, as in the generated code itself.
inlined_helper = numba.njit(forceinline=True, error_model="numpy", cache=True)


def _coeffs(dtype, *hexes: str) -> tuple:
    return tuple(dtype(float.fromhex(h)) for h in hexes)


# --- float64 -----------------------------------------------------------------------

_INV_LN2 = 1.4426950408889634
_LN2 = 0.6931471805599453
_LN2_HI = float.fromhex("0x1.62e42fee00000p-1")   # 32 significant bits
_LN2_LO = float.fromhex("0x1.a39ef35793c76p-33")   # ln2 - _LN2_HI
_INF, _NAN, _NEG_NAN = np.inf, np.nan, -np.nan     # NumPy's log1p(x < -1) is -NaN

# expm1(r) ~= r + r*r*P(r) on |r| <= ln2/2. Degree 10: relative error 2**-59.7.
_P64 = _coeffs(float, "0x1.0000000000000p-1", "0x1.5555555555557p-3",
               "0x1.555555555554ep-5", "0x1.11111111100eep-7", "0x1.6c16c16c1a074p-10",
               "0x1.a01a01abdf00bp-13", "0x1.a01a019062237p-16", "0x1.71de024b42489p-19",
               "0x1.27e510dab6f56p-22", "0x1.af4db8a6acbf9p-26", "0x1.1f19f3eb97c8fp-29")
# log(1+f) = 2 atanh(s) = 2s + s*w*T(w), w = s*s <= 0.0295. Degree 6: 2**-57.6.
_T64 = _coeffs(float, "0x1.5555555555558p-1", "0x1.99999999952a7p-2",
               "0x1.2492492df7080p-2", "0x1.c71c62defbc08p-3", "0x1.7462b65697064p-3",
               "0x1.39fe2df00add3p-3", "0x1.2b5a86730978fp-3")


@inlined_helper
def _reduce64(x):
    """n, r, rl with x = n*ln2 + r + rl, |r| <= ln2/2 (+tiny), |rl| <= ulp(r)."""
    n = _rint(x * _INV_LN2)
    rh = _fma(n, -_LN2_HI, x)                # exact for |n| < 2**21
    r = _fma(n, -_LN2_LO, rh)
    # The rounding error of r: 2**n * expm1(r) would magnify it at n = 1.
    return n, r, _fma(n, -_LN2_LO, rh - r)


@inlined_helper
def _expm1_tail64(r, rl):
    """expm1(r + rl) - r, using rl*exp(r) ~= rl*(1 + r)."""
    return _fma(r * r, _horner(r, _P64), _fma(r, rl, rl))


@inlined_helper
def _expm1_scaled64(r, rl, s):
    """s*expm1(r + rl) + (s - 1) for s = 2**n, -87 <= n <= 1023 (normal s)."""
    t = _expm1_tail64(r, rl)
    # At n = 1 (s = 2) 2r + 1 is exact and the tail goes on last; elsewhere
    # rounding expm1(r) first and one fused s*e + (s - 1) is more accurate.
    return _select(s == 2.0, _fma(s, t, _fma(s, r, s - 1.0)), _fma(s, r + t, s - 1.0))


@inlined_helper
def _log1pf64(f):
    """(f*f/2, tail): log(1 + f) = f - (f*f/2 - tail) for 1 + f in [sqrt(1/2), sqrt(2))."""
    s = _div(f, 2.0 + f)
    w = s * s
    hfsq = 0.5 * f * f
    return hfsq, s * (hfsq + w * _horner(w, _T64))


@inlined_helper
def exp_f64(x):
    # exp(+-1000) is already inf / 0; the clamp keeps 2**n1 and 2**n2 normal.
    x = _select(x > 1000.0, 1000.0, x)                 # NaN compares false: kept
    x = _select(x < -1000.0, -1000.0, x)
    n, r, rl = _reduce64(x)
    p = 1.0 + (r + _expm1_tail64(r, rl))
    return _scale2(p, n)                               # the last multiply rounds


@inlined_helper
def expm1_f64(x):
    # expm1(x) rounds to -1 from x < -37.43 on; x >= -60 keeps 2**n normal.
    xc = _select(x > 1000.0, 1000.0, x)
    xc = _select(xc < -60.0, -60.0, xc)
    n, r, rl = _reduce64(xc)
    # For n > 512 the -1 is far below an ulp: scale by 2**(n - n2) first and by
    # 2**n2 after, so no power of two overflows before the result does.
    n2 = _select(n > 512.0, _rint(0.5 * n), 0.0)
    y = _expm1_scaled64(r, rl, _pow2(n - n2)) * _pow2(n2)
    return _select(x == 0.0, x, y)                     # -0.0 stays -0.0


@inlined_helper
def log_f64(x):
    sub = x < 2.2250738585072014e-308                  # subnormal (or <= 0: see below)
    k, f = _log_split(_select(sub, x * 4503599627370496.0, x))   # * 2**52
    k = k - _select(sub, 52.0, 0.0)
    hfsq, tail = _log1pf64(f)
    y = _fma(k, _LN2_HI, f - (hfsq - _fma(k, _LN2_LO, tail)))
    special = _select(x == 0.0, -_INF, _select(x < 0.0, _NAN, x + x))   # +inf, NaN
    return _select((x > 0.0) & (x < _INF), y, special)


@inlined_helper
def log1p_f64(x):
    u = 1.0 + x
    # c = 1 + x - u exactly (Fast2Sum, larger operand first); log1p(x) =
    # log(u) + c/u to well below an ulp.
    c = _select(_fabs(x) < 1.0, x - (u - 1.0), 1.0 - (u - x))
    k, f = _log_split(u)
    hfsq, tail = _log1pf64(f)
    y = _fma(k, _LN2_HI, f - (hfsq - (tail + _fma(k, _LN2_LO, _div(c, u)))))
    special = _select(x == -1.0, -_INF, _select(x < -1.0, _NEG_NAN, x + x))
    y = _select((x > -1.0) & (x < _INF), y, special)
    return _select(x == 0.0, x, y)


@inlined_helper
def tanh_f64(x):
    # tanh(a) = e/(e + 2), e = expm1(2a): keeps relative accuracy near 0.
    a = _fabs(x)
    a = _select(a > 20.0, 20.0, a)                     # rounds to 1 from 19.06 on
    n, r, rl = _reduce64(a + a)
    s = _pow2(n)                                       # n <= 58
    # e = eh + el (hi is exact for n <= 1 where it matters; Fast2Sum as
    # |hi| >= |lo|). Rounding e and e + 2 separately would cost ~1.5 ulp.
    hi = _fma(s, r, s - 1.0)
    lo = s * _expm1_tail64(r, rl)
    eh = hi + lo
    el = (hi - eh) + lo
    dh = eh + 2.0                                      # d = e + 2 = dh + dl (2Sum)
    bb = dh - eh
    dl = ((2.0 - bb) + (eh - (dh - bb))) + el
    inv = _div(1.0, dh)
    q = eh * inv
    # One correction step q + (e - q*d)/d; e - q*d is nearly exact with fma.
    return _copysign(_fma(_fma(-q, dh, eh) + _fma(-q, dl, el), inv, q), x)


# --- pow -----------------------------------------------------------------------------
# pow(x, y) = exp(y * log|x|). Rounding log|x| to a double would cost up to
# |y log x| * 2**-53 of absolute error in the exponent, i.e. hundreds of ulp
# near overflow, so log|x| is a double-word Lh + Ll (relative error ~2**-66)
# and y * log|x| a double-word zh + zl whose low part joins exp's reduction.

_C3_HI = 2.0 / 3.0
_C3_LO = float.fromhex("0x1.5555555555555p-55")     # 2/3 - _C3_HI
# log(1+f) = 2s + (2/3)s**3 + s**5 U(s*s), U(w) = 2/5 + 2/7 w + ... (atanh's
# tail) on w <= 0.0295. Degree 7, a Chebyshev fit in 200-bit arithmetic:
# relative error 2**-53.8; U's term is below 2**-12.5 of the logarithm.
_U64 = _coeffs(float, "0x1.999999999999ap-2", "0x1.2492492492521p-2",
               "0x1.c71c71c6eaa8dp-3", "0x1.745d177a8f200p-3", "0x1.3b1395d4f9e5fp-3",
               "0x1.1118c74823a2ep-3", "0x1.df7ce9a6bcccbp-4", "0x1.e02d197c00c78p-4")


@inlined_helper
def _two_sum(a, b):
    """(s, e) with s = fl(a + b) and s + e = a + b exactly, any magnitudes."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@inlined_helper
def _log_dd(x, k0):
    """(hi, lo) with hi + lo = log(x) + k0*ln2 to ~2**-66 relative, for normal
    x > 0 and an integer-valued k0 (the scaling of a subnormal input)."""
    k, f = _log_split(x)
    k = k + k0
    dh = 2.0 + f                                       # 2 + f = dh + dl exactly
    dl = (2.0 - dh) + f
    inv = _div(1.0, dh)                                # s = f / (2 + f) = sh + sl:
    sh = f * inv                                       # sl corrects sh's error, so
    sl = (_fma_exact(-sh, dh, f) - sh * dl) * inv            # one division serves both
    s2h = sh * sh
    s2l = _fma_exact(sh, sh, -s2h) + 2.0 * sh * sl
    s3h = s2h * sh
    s3l = _fma_exact(s2h, sh, -s3h) + (s2h * sl + s2l * sh)
    th = _C3_HI * s3h                                  # (2/3) s**3 = th + tl
    tl = _fma_exact(_C3_HI, s3h, -th) + (_C3_HI * s3l + _C3_LO * s3h)
    rest = s3h * s2h * _horner(s2h, _U64)
    a, ea = _two_sum(k * _LN2_HI, 2.0 * sh)            # k * _LN2_HI is exact
    b, eb = _two_sum(a, th)
    lo = ea + eb + (_fma(k, _LN2_LO, 2.0 * sl) + (tl + rest))
    hi = b + lo
    return hi, (b - hi) + lo


@inlined_helper
def _exp_dd(zh, zl):
    """exp(zh + zl) for |zl| <= ulp(zh), |zh| <= 1000, like exp_f64 otherwise."""
    n = _rint(zh * _INV_LN2)
    rh = _fma(n, -_LN2_HI, zh)                         # exact, as in _reduce64
    r, rl = _two_sum(rh, _fma(n, -_LN2_LO, zl))
    p = 1.0 + (r + _expm1_tail64(r, rl))
    return _scale2(p, n)


@inlined_helper
def pow_f64(x, y):
    ax = _fabs(x)
    sub = ax < 2.2250738585072014e-308
    lh, ll = _log_dd(_select(sub, ax * 4503599627370496.0, ax), _select(sub, -52.0, 0.0))
    zh = y * lh
    zl = _fma_exact(y, lh, -zh) + y * ll
    # |y log x| > 1000 overflows or underflows whatever the low part says.
    small = _fabs(zh) <= 1000.0
    zh = _select(small, zh, _copysign(1000.0, zh))
    return _pow_special(x, y, _exp_dd(zh, _select(small, zl, 0.0)))


@inlined_helper
def _pow_special(x, y, r):
    """r = |x|**y for finite non-zero x, with C99 Annex F's special cases (as
    libm, and so NumPy, returns them) put in for every other x and y."""
    ax = _fabs(x)
    y_int = _floor(y) == y                             # +-inf count as even integers
    y_odd = y_int & (_fabs(y) < 9007199254740992.0) & (_floor(0.5 * y) != 0.5 * y)
    r = _select(ax == 0.0, _select(y < 0.0, _INF, 0.0), r)
    r = _select(ax == _INF, _select(y < 0.0, 0.0, _INF), r)
    r = _select(_fabs(y) == _INF,
                _select(ax == 1.0, 1.0, _select((ax < 1.0) == (y < 0.0), _INF, 0.0)), r)
    r = _select(y_odd & (_copysign(1.0, x) < 0.0), -r, r)
    r = _select((x < 0.0) & (x > -_INF) & ~y_int, _NAN, r)
    r = _select((x != x) | (y != y), x + y, r)
    return _select((y == 0.0) | (x == 1.0), 1.0, r)


# float32 pow in float64 arithmetic (4 lanes), which float32 needs far less of
# than float64 pow: a result within 2**-28 before its rounding to float32
# (1/16 ulp). log(1 + f) = 2s + s*w*T(w), T of degree 3 (2**-29.1, so
# 2**-35.8 of the logarithm); for |z| = |y log x| <= 104 (past that the result
# overflows or underflows float32) z is within 2**-29; exp(z) = 2**n *
# (1 + expm1(r)) with expm1 of degree 6 (2**-36.5). Chebyshev fits in 200-bit
# arithmetic.
_TF64 = _coeffs(float, "0x1.5555554bb2b2cp-1", "0x1.9999eb5d84f14p-2",
                "0x1.245c438323e9ap-2", "0x1.ddced7078dd3ap-3")
_PF64 = _coeffs(float, "0x1.0000000000000p-1", "0x1.5555556750672p-3",
                "0x1.5555555c85f99p-5", "0x1.1110c63a4eed0p-7", "0x1.6c1685919d367p-10",
                "0x1.a15169e096556p-13", "0x1.a1131351400c3p-16")


@inlined_helper
def pow_f32(x, y):
    xd, yd = np.float64(x), np.float64(y)           # exact: the special cases are pow_f64's
    ax = _fabs(xd)
    k, f = _log_split(_select((ax > 0.0) & (ax < _INF), ax, 1.0))  # subnormal float32s
    s = _div(f, 2.0 + f)                               # are normal float64s
    w = s * s
    hfsq = 0.5 * f * f
    log_ax = _fma(k, _LN2, f - (hfsq - s * (hfsq + w * _horner(w, _TF64))))
    z = yd * log_ax
    z = _select(z < 200.0, z, 200.0)                   # NaN too: the specials replace it
    z = _select(z > -200.0, z, -200.0)
    n = _rint(z * _INV_LN2)
    r = _fma(n, -_LN2_LO, _fma(n, -_LN2_HI, z))
    p = 1.0 + (r + r * r * _horner(r, _PF64))
    return np.float32(_pow_special(xd, yd, p * _pow2(n)))   # 2**n normal: |n| <= 289


# --- float32 -----------------------------------------------------------------------
# The same algorithms in float32 arithmetic. Every constant is a np.float32: a
# Python float would promote the whole expression to float64.

_F = np.float32
_INV_LN2_F = _F(_INV_LN2)
_LN2_HI_F = _F(float.fromhex("0x1.62e4p-1"))      # 16 bits: n*hi exact for |n| < 2**8
_LN2_LO_F = _F(0.6931471805599453 - float.fromhex("0x1.62e4p-1"))
_ZERO_F, _HALF_F, _ONE_F, _TWO_F = _F(0.0), _F(0.5), _F(1.0), _F(2.0)
_INF_F, _NEG_NAN_F = _F(np.inf), _F(-np.nan)      # NumPy's float32 log(x < 0) is -NaN

# expm1(r) ~= r + r*r*P(r), |r| <= ln2/2. Degree 4: relative error 2**-25.3.
_P32 = _coeffs(_F, "0x1.0p-1", "0x1.5554dep-3", "0x1.5555bap-5", "0x1.120b1cp-7",
               "0x1.6c69f2p-10")
# log(1+f) = 2s + s*w*T(w), w = s*s. Degree 2: relative error 2**-28.5.
_T32 = _coeffs(_F, "0x1.55555cp-1", "0x1.997c26p-2", "0x1.2ee78ap-2")


@inlined_helper
def _reduce32(x):
    """n, r, rl with x = n*ln2 + r + rl, |r| <= ln2/2, |rl| <= ulp(r); |x| <= 150."""
    n = _rint(x * _INV_LN2_F)
    rh = _fma(n, -_LN2_HI_F, x)
    r = _fma(n, -_LN2_LO_F, rh)
    return n, r, _fma(n, -_LN2_LO_F, rh - r)


@inlined_helper
def _expm1_tail32(r, rl):
    return _fma(r * r, _horner(r, _P32), _fma(r, rl, rl))


@inlined_helper
def _log1pf32(f):
    s = _div(f, _TWO_F + f)
    w = s * s
    hfsq = _HALF_F * f * f
    return hfsq, s * (hfsq + w * _horner(w, _T32))


@inlined_helper
def exp_f32(x):
    x = _select(x > _F(100.0), _F(100.0), x)           # exp(100) = inf, exp(-110) = 0
    x = _select(x < _F(-110.0), _F(-110.0), x)
    n, r, rl = _reduce32(x)
    p = _ONE_F + (r + _expm1_tail32(r, rl))
    return _scale2(p, n)


@inlined_helper
def expm1_f32(x):
    xc = _select(x > _F(100.0), _F(100.0), x)
    xc = _select(xc < _F(-30.0), _F(-30.0), xc)        # -1 from x < -17.33 on
    n, r, rl = _reduce32(xc)
    n2 = _select(n > _F(64.0), _F(32.0), _ZERO_F)      # n <= 145: take 2**32 out
    s = _pow2(n - n2)
    t = _expm1_tail32(r, rl)
    y = _select(s == _TWO_F, _fma(s, t, _fma(s, r, s - _ONE_F)), _fma(s, r + t, s - _ONE_F))
    return _select(x == _ZERO_F, x, y * _pow2(n2))


@inlined_helper
def log_f32(x):
    sub = x < _F(1.1754943508222875e-38)
    k, f = _log_split(_select(sub, x * _F(8388608.0), x))        # * 2**23
    k = k - _select(sub, _F(23.0), _ZERO_F)
    hfsq, tail = _log1pf32(f)
    y = _fma(k, _LN2_HI_F, f - (hfsq - _fma(k, _LN2_LO_F, tail)))
    special = _select(x == _ZERO_F, -_INF_F, _select(x < _ZERO_F, _NEG_NAN_F, x + x))
    return _select((x > _ZERO_F) & (x < _INF_F), y, special)


@inlined_helper
def log1p_f32(x):
    u = _ONE_F + x
    c = _select(_fabs(x) < _ONE_F, x - (u - _ONE_F), _ONE_F - (u - x))
    k, f = _log_split(u)
    hfsq, tail = _log1pf32(f)
    y = _fma(k, _LN2_HI_F, f - (hfsq - (tail + _fma(k, _LN2_LO_F, _div(c, u)))))
    special = _select(x == -_ONE_F, -_INF_F, _select(x < -_ONE_F, _NEG_NAN_F, x + x))
    y = _select((x > -_ONE_F) & (x < _INF_F), y, special)
    return _select(x == _ZERO_F, x, y)


@inlined_helper
def tanh_f32(x):
    a = _fabs(x)
    a = _select(a > _F(10.0), _F(10.0), a)             # rounds to 1 from 9.011 on
    n, r, rl = _reduce32(a + a)
    s = _pow2(n)
    hi = _fma(s, r, s - _ONE_F)
    lo = s * _expm1_tail32(r, rl)
    eh = hi + lo
    el = (hi - eh) + lo
    dh = eh + _TWO_F
    bb = dh - eh
    dl = ((_TWO_F - bb) + (eh - (dh - bb))) + el
    inv = _div(_ONE_F, dh)
    q = eh * inv
    return _copysign(_fma(_fma(-q, dh, eh) + _fma(-q, dl, el), inv, q), x)


# --- sin / cos (float32) -------------------------------------------------------------
# Computed in float64. |x| = M * 2**e with M the 24-bit integer significand, so
# x*(2/pi) mod 4 = M * ((2/pi) * 2**e mod 4) exactly: a table per exponent
# field holds (2/pi) * 2**e mod 4 in three 29-bit pieces (products with M are
# exact doubles), so the reduction is exact for every float32, huge ones
# included (Payne-Hanek's idea; one table load, no branch). The quadrant k and
# fraction f come out of the pieces' sum; r = f * pi/2, |r| <= pi/4, and
# sin r, cos r are their Taylor series to r**11 / r**12 (2**-36).


def _two_over_pi(bits: int) -> int:
    """floor(2/pi * 2**bits), from Machin's pi = 16 atan(1/5) - 4 atan(1/239)."""
    guard = bits + 32
    one = 1 << guard

    def atan_inv(n: int) -> int:
        total, term, k, sign = 0, one // n, 1, 1
        while term:
            total += sign * (term // k)
            term //= n * n
            k, sign = k + 2, -sign
        return total

    pi = 16 * atan_inv(5) - 4 * atan_inv(239)
    return (2 * one * one // pi) >> 32


def _sin_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from fractions import Fraction
    scale = 600
    two_over_pi = Fraction(_two_over_pi(scale), 1 << scale)
    pieces = np.zeros((3, 256))
    for field in range(255):                      # 255: inf and NaN, no reduction
        g = (two_over_pi * Fraction(2) ** (max(field, 1) - 150)) % 4
        top = g.numerator.bit_length() - g.denominator.bit_length() + 1
        for i in range(3):                        # 29 significant bits each, from the top
            unit = Fraction(2) ** (top - 29 * (i + 1))
            piece = (g // unit) * unit
            pieces[i, field] = float(piece)
            g -= piece
    return pieces[0], pieces[1], pieces[2]


_SIN_G0, _SIN_G1, _SIN_G2 = _sin_table()
_PI_2 = 1.5707963267948966
_SIN = tuple(float(c) for c in (-1 / 6, 1 / 120, -1 / 5040, 1 / 362880, -1 / 39916800))
_COS = tuple(float(c) for c in (-1 / 2, 1 / 24, -1 / 720, 1 / 40320, -1 / 3628800,
                                1 / 479001600))


@intrinsic
def _split_f32(typingctx, x):
    """float32 x -> (exponent field as an int, integer significand M as a float64)."""
    if x != types.float32:
        return None
    rtype = types.Tuple((types.int64, types.float64))

    def codegen(ctx, builder, sig, args):
        i32 = ir.IntType(32)
        bits = builder.bitcast(args[0], i32)
        field = builder.and_(builder.lshr(bits, ir.Constant(i32, 23)), ir.Constant(i32, 255))
        implicit = builder.shl(builder.zext(builder.icmp_unsigned("!=", field, ir.Constant(
            i32, 0)), i32), ir.Constant(i32, 23))
        m = builder.or_(builder.and_(bits, ir.Constant(i32, 0x7FFFFF)), implicit)
        return ctx.make_tuple(builder, rtype, [builder.zext(field, ir.IntType(64)),
                                              builder.sitofp(m, ir.DoubleType())])
    return rtype(x), codegen


@inlined_helper
def _reduce_f32(x):
    """(q, r): |x| = (q + 4j) * pi/2 + r for an integer j, q in 0..3, |r| <= pi/4."""
    field, m = _split_f32(x)
    p0 = m * _SIN_G0[field]                            # all three exact or nearly
    p0 = p0 - 4.0 * _floor(0.25 * p0)                  # mod 4, exactly
    p1 = m * _SIN_G1[field]
    k = _rint(p0 + p1)
    f = ((p0 - k) + p1) + m * _SIN_G2[field]
    return k - 4.0 * _floor(0.25 * k), f * _PI_2


@inlined_helper
def _sin_poly(r):
    r2 = r * r
    return _fma(r * r2, _horner(r2, _SIN), r)


@inlined_helper
def _cos_poly(r):
    r2 = r * r
    return _fma(r2, _horner(r2, _COS), 1.0)


@inlined_helper
def sin_f32(x):
    q, r = _reduce_f32(x)
    s, c = _sin_poly(r), _cos_poly(r)
    y = _select(q == 0.0, s, _select(q == 1.0, c, _select(q == 2.0, -s, -c)))
    y = np.float32(_select(_copysign(1.0, np.float64(x)) < 0.0, -y, y))   # sin(-x) = -sin(x)
    return _select(_fabs(x) < _INF_F, y, x - x)        # inf, NaN -> NaN


@inlined_helper
def cos_f32(x):
    q, r = _reduce_f32(x)
    s, c = _sin_poly(r), _cos_poly(r)
    y = np.float32(_select(q == 0.0, c, _select(q == 1.0, -s, _select(q == 2.0, -c, s))))
    return _select(_fabs(x) < _INF_F, y, x - x)


# --- arctan, arctan2, arcsin, arccos --------------------------------------------------
# One kernel, atan(t) = t + t**3 Q(t*t) on t in [0, 1], serves all four.
# atan2(y, x) divides the smaller of |y|, |x| by the larger, takes
# pi/2 - atan(t) where |y| > |x| and pi minus that where x's sign bit is set
# (so atan2(+-0, -0) = +-pi), then gives the result y's sign; 0/0 and inf/inf
# become t = 0 and 1, which is every special case of C99 Annex F. pi and pi/2
# are added in two parts, last, so an exact multiple of pi/2 comes out
# correctly rounded. arctan(x) is
# atan2(x, 1); arcsin(x) = atan2(x, sqrt(1 - x*x)) and arccos(x) =
# atan2(sqrt(1 - x*x), x), 1 - x*x from one fused multiply-add (exact before
# its rounding, so no cancellation near |x| = 1; |x| > 1 gives sqrt(< 0) = NaN).
# float32 works in float64 with a shorter Q, as pow and sin do.
_Q_ATAN64 = _coeffs(float, "-0x1.5555555555555p-2", "0x1.999999999991fp-3",
                    "-0x1.249249248db5bp-3", "0x1.c71c71c4f2394p-4", "-0x1.745d1700427a8p-4",
                    "0x1.3b13abdf436b7p-4", "-0x1.1110ca450a2e2p-4", "0x1.e1dcb2405cff1p-5",
                    "-0x1.af047cbfe711ep-5", "0x1.855adf0de5435p-5", "-0x1.6122a08098c23p-5",
                    "0x1.3dccfc42f51a8p-5", "-0x1.1598ec0e8763ap-5", "0x1.c72dd69bad67ep-6",
                    "-0x1.4fdcfc41970e8p-6", "0x1.a9fc783b8bc56p-7", "-0x1.ba319519c9e71p-8",
                    "0x1.635245a83496cp-9", "-0x1.9a6376d2d7899p-11", "0x1.2d06cefd0baf8p-13",
                    "-0x1.a35cc43a37afep-17")    # degree 20: 2**-57.9
_Q_ATAN32 = _coeffs(float, "-0x1.5555555037cd7p-2", "0x1.99998f3fc0776p-3",
                    "-0x1.24908d001014bp-3", "0x1.c6e1f72154fffp-4", "-0x1.725cf3e27e85ap-4",
                    "0x1.30a0e17ad26cdp-4", "-0x1.db90797fc254bp-5", "0x1.3f13cfa85a42ep-5",
                    "-0x1.44328eafb365cp-6", "0x1.a6f590785d9efp-8", "-0x1.0252969bc0814p-10")
_PI = 3.141592653589793
_PI_LO = 1.2246467991473532e-16                     # pi - _PI
_PI_2_LO = 6.123233995736766e-17                    # pi/2 - _PI_2


@inlined_helper
def _atan2_core(y, x, q):
    """atan2 in float64 with the polynomial Q's coefficients q."""
    a, b = _fabs(y), _fabs(x)
    swap = a > b
    num, den = _select(swap, b, a), _select(swap, a, b)
    t = _select(num == den, _select(num == 0.0, 0.0, 1.0), _div(num, den))  # 0/0, inf/inf
    s = t * t
    p = _fma(t * s, _horner(s, q), t)
    # The angle is base + p or base - p, base 0, pi/2 or pi (kept in two parts).
    neg_x = _copysign(1.0, x) < 0.0
    p = _select(swap != neg_x, -p, p)
    base = _select(neg_x, _select(swap, _PI_2, _PI), _select(swap, _PI_2, 0.0))
    base_lo = _select(neg_x, _select(swap, _PI_2_LO, _PI_LO), _select(swap, _PI_2_LO, 0.0))
    return _copysign(base + (p + base_lo), y)


@inlined_helper
def arctan2_f64(y, x):
    return _atan2_core(y, x, _Q_ATAN64)


@inlined_helper
def arctan_f64(x):
    return _atan2_core(x, 1.0, _Q_ATAN64)


@inlined_helper
def arcsin_f64(x):
    return _atan2_core(x, np.sqrt(_fma_exact(-x, x, 1.0)), _Q_ATAN64)


@inlined_helper
def arccos_f64(x):
    return _atan2_core(np.sqrt(_fma_exact(-x, x, 1.0)), x, _Q_ATAN64)


@inlined_helper
def arctan2_f32(y, x):
    return np.float32(_atan2_core(np.float64(y), np.float64(x), _Q_ATAN32))


@inlined_helper
def arctan_f32(x):
    return np.float32(_atan2_core(np.float64(x), 1.0, _Q_ATAN32))


@inlined_helper
def arcsin_f32(x):
    xd = np.float64(x)                                 # xd*xd is exact
    return np.float32(_atan2_core(xd, np.sqrt(1.0 - xd * xd), _Q_ATAN32))


@inlined_helper
def arccos_f32(x):
    xd = np.float64(x)
    return np.float32(_atan2_core(np.sqrt(1.0 - xd * xd), xd, _Q_ATAN32))


_F64, _F32 = np.dtype("float64"), np.dtype("float32")

#: op name -> input dtype -> scalar njit function (for the loop lowering).
VECTOR_MATH = {
    "exp": {_F64: exp_f64, _F32: exp_f32},
    "expm1": {_F64: expm1_f64, _F32: expm1_f32},
    "log": {_F64: log_f64, _F32: log_f32},
    "log1p": {_F64: log1p_f64, _F32: log1p_f32},
    "tanh": {_F64: tanh_f64, _F32: tanh_f32},
    "power": {_F64: pow_f64, _F32: pow_f32},
    # float64 sin/cos stay libm's (a full-range vector reduction needs
    # ~1100 bits of 2/pi and double-word products).
    "sin": {_F32: sin_f32},
    "cos": {_F32: cos_f32},
    "arctan": {_F64: arctan_f64, _F32: arctan_f32},
    "arctan2": {_F64: arctan2_f64, _F32: arctan2_f32},
    "arcsin": {_F64: arcsin_f64, _F32: arcsin_f32},
    "arccos": {_F64: arccos_f64, _F32: arccos_f32},
}
