"""Accuracy and speed of jitaic.lower.vecmath against NumPy and libm loops.

    python benchmarks/vecmath_accuracy.py            # 10 million points per case
    python benchmarks/vecmath_accuracy.py --quick    # 1 million

Accuracy: ulp distance of each vecmath function (run in a numba loop) from
NumPy's result, and from a higher-precision reference (the long double ufunc
rounded to float64 where long double is wider than float64; float64 NumPy
rounded to float32 for float32). Points: random bit patterns (every finite
value equally likely per binade pattern, plus inf/NaN/subnormals), random
sign times a log-uniform magnitude over the whole range, a dense region near
0, and the region where the function is most delicate. "class" counts results
whose kind differs from NumPy (NaN-ness, +-inf, +-0, subnormal vs normal);
"specials" compares a list of edge inputs bit for bit (NaN: NaN-ness only).

Speed: median time of ``for i in range(n): out[i] = f(x[i])`` with the libm
call (``np.exp`` etc. in numba) and with the vecmath function, and of the
NumPy ufunc, at n = 1e5 and 1e6.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import zlib

import numba
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from jitaic.lower.vecmath import VECTOR_MATH  # noqa: E402

NUMPY = {"exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "tanh": np.tanh,
         "sin": np.sin, "cos": np.cos, "arctan": np.arctan, "arcsin": np.arcsin,
         "arccos": np.arccos}
DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
# Where each function needs care: (low, high) for a uniform sample.
DELICATE = {"exp": (-750.0, 712.0), "expm1": (-3.0, 3.0), "log": (0.5, 2.0),
            "log1p": (-1.0, 1.0), "tanh": (-3.0, 3.0), "sin": (-1e5, 1e5), "cos": (-1e5, 1e5),
            "arctan": (-4.0, 4.0), "arcsin": (-1.0, 1.0), "arccos": (-1.0, 1.0)}
TIMING_RANGE = {"exp": (-10.0, 10.0), "expm1": (-5.0, 5.0), "log": (1e-3, 1e3),
                "log1p": (-0.9, 1e3), "tanh": (-5.0, 5.0), "sin": (-10.0, 10.0),
                "cos": (-10.0, 10.0), "arctan": (-3.0, 3.0), "arcsin": (-1.0, 1.0),
                "arccos": (-1.0, 1.0)}


def cases():
    """(name, NumPy function, dtype) for every function and dtype vecmath has."""
    return [(name, fn, dtype) for name, fn in NUMPY.items() for dtype in DTYPES
            if dtype in VECTOR_MATH[name]]
WIDE_LONGDOUBLE = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant


def make_loop(f):
    @numba.njit(error_model="numpy")
    def loop(x, out):
        for i in range(x.size):
            out[i] = f(x[i])
    return loop


def ordered(a: np.ndarray) -> np.ndarray:
    """Map floats to integers that are monotone in value (+0 and -0 both 0)."""
    it = np.int64 if a.dtype == np.float64 else np.int32
    i = a.view(it).astype(np.int64)
    return np.where(i < 0, np.int64(np.iinfo(it).min) - i, i)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = np.abs(ordered(a) - ordered(b)).astype(np.float64)
    d[np.isnan(a) & np.isnan(b)] = 0.0
    d[np.isnan(a) != np.isnan(b)] = np.inf
    return d


def kind(a: np.ndarray) -> np.ndarray:
    """0 NaN, 1 +-inf, 2 +-0, 3 subnormal, 4 normal; times the sign (except NaN)."""
    tiny = np.finfo(a.dtype).tiny
    k = np.select([np.isnan(a), np.isinf(a), a == 0, np.abs(a) < tiny], [0, 1, 2, 3], 4)
    return np.where(np.isnan(a), 0, np.where(np.signbit(a), -k, k))


def sample(name: str, dtype: np.dtype, n: int, rng: np.random.Generator) -> np.ndarray:
    q = n // 4
    ut = np.uint64 if dtype == np.float64 else np.uint32
    bits = rng.integers(0, np.iinfo(ut).max, q, dtype=ut, endpoint=True).view(dtype)
    fi = np.finfo(dtype)
    lo, hi = np.log2(float(fi.smallest_subnormal)), np.log2(float(fi.max))
    mag = np.exp2(rng.uniform(lo, hi, q)).astype(dtype)
    logu = np.where(rng.random(q) < 0.5, -mag, mag)
    near0 = (rng.uniform(-1.0, 1.0, q) * 2.0 ** rng.uniform(-60, 0, q)).astype(dtype)
    a, b = DELICATE[name]
    delicate = rng.uniform(a, b, n - 3 * q).astype(dtype)
    return np.concatenate([bits, logu, near0, delicate])


def special_inputs(dtype: np.dtype) -> np.ndarray:
    fi = np.finfo(dtype)
    base = [0.0, np.inf, np.nan, float(fi.smallest_subnormal), float(fi.tiny) / 2,
            float(fi.tiny), float(fi.max), 1.0, 0.5, 2.0, 1e-300, 1e-30, 1e-10, 1e-5,
            # exp / expm1 overflow and underflow thresholds, float64 and float32
            709.782712893384, 709.7827128933841, 708.3964185322641, 745.1332191019411,
            745.1332191019412, 744.4400719213812, 746.0, 710.0, 37.0, 38.0, 40.0, 60.0,
            88.72283, 88.72284, 87.33654, 103.97208, 104.0, 89.0, 17.0, 18.0,
            # tanh saturation
            19.0, 19.06, 20.0, 22.0, 9.0, 9.01, 10.0,
            # log / log1p near 1 and -1
            1.0 + 2.0 ** -52, 1.0 - 2.0 ** -53, 0.9999999, 1.0000001]
    xs = np.array(base, dtype=dtype)
    xs = np.concatenate([xs, -xs])
    with np.errstate(over="ignore"):
        near = [np.nextafter(xs, np.array(np.inf, dtype)),
                np.nextafter(xs, np.array(-np.inf, dtype))]
    extra = np.array([-1.0, np.nextafter(-1.0, 0.0), np.nextafter(-1.0, -2.0)], dtype=dtype)
    return np.concatenate([xs, *near, extra]).astype(dtype)


def reference(fn, x: np.ndarray) -> np.ndarray | None:
    if x.dtype == np.float32:
        return fn(x.astype(np.float64)).astype(np.float32)
    if WIDE_LONGDOUBLE:
        return fn(x.astype(np.longdouble)).astype(np.float64)
    return None


def accuracy(n_points: int, chunk: int = 1 << 21) -> list[dict]:
    rows = []
    for name, fn, dtype in cases():
        loop = make_loop(VECTOR_MATH[name][dtype])
        rng = np.random.default_rng(zlib.crc32(f"{name}-{dtype.name}".encode()))
        x_all = sample(name, dtype, n_points, rng)
        worst = worst_ref = numpy_ref = 0.0
        total = 0.0
        worst_x = None
        bad_kind = 0
        for s in range(0, x_all.size, chunk):
            x = x_all[s:s + chunk]
            out = np.empty_like(x)
            loop(x, out)
            with np.errstate(all="ignore"):
                want = fn(x)
                ref = reference(fn, x)
            d = ulp_distance(out, want)
            total += d.sum()
            if d.max() > worst:
                worst, worst_x = d.max(), x[np.argmax(d)]
            if ref is not None:
                worst_ref = max(worst_ref, ulp_distance(out, ref).max())
                numpy_ref = max(numpy_ref, ulp_distance(want, ref).max())
            bad_kind += int(np.count_nonzero(kind(out) != kind(want)))
        sx = special_inputs(dtype)
        sout = np.empty_like(sx)
        loop(sx, sout)
        with np.errstate(all="ignore"):
            swant = fn(sx)
        exact = sout.view(f"u{dtype.itemsize}") == swant.view(f"u{dtype.itemsize}")
        exact |= np.isnan(sout) & np.isnan(swant)
        # Edge inputs whose result is an ordinary (normal or subnormal)
        # number may round differently by an ulp (NumPy's float32 SIMD
        # exp is itself an ulp off in the subnormal range); their kind
        # must still agree. NaN, inf and zero results must be identical.
        finite = (kind(swant) == kind(sout)) & (np.abs(kind(swant)) >= 3)
        close = finite & (ulp_distance(sout, swant) <= 2)
        special_bad = [(float(a), float(b), float(c)) for a, b, c, ok
                       in zip(sx, sout, swant, exact | close) if not ok]
        n_special, n_identical = sx.size, int(np.count_nonzero(exact))
        rows.append(dict(name=name, dtype=dtype.name, max_ulp=worst,
                         mean_ulp=total / x_all.size, max_ulp_ref=worst_ref,
                         numpy_ulp_ref=numpy_ref,
                         worst_x=worst_x, bad_kind=bad_kind, special_bad=special_bad,
                         n_special=n_special, n_identical=n_identical, n=x_all.size))
    return rows


def median_times(fns, x, out, repeat: int) -> list[float]:
    """Median seconds per call of each f(x, out); the calls are interleaved so
    that load from other processes hits all of them alike."""
    ts = [[] for _ in fns]
    for _ in range(repeat):
        for t, f in zip(ts, fns):
            t0 = time.perf_counter()
            f(x, out)
            t.append(time.perf_counter() - t0)
    return [float(np.median(t)) for t in ts]


def speed(sizes=(10**5, 10**6), repeat: int = 21) -> list[dict]:
    rows = []
    for name, fn, dtype in cases():
        vm, lib = make_loop(VECTOR_MATH[name][dtype]), make_loop(fn)
        for n in sizes:
            x = np.random.default_rng(n).uniform(*TIMING_RANGE[name], n).astype(dtype)
            out = np.empty_like(x)
            vm(x, out)
            lib(x, out)
            r = repeat if n <= 10**5 else max(5, repeat // 3)
            t_lib, t_vm, t_np = median_times((lib, vm, fn), x, out, r)
            rows.append(dict(name=name, dtype=dtype.name, n=n, lib=t_lib, vm=t_vm, np=t_np))
    return rows


def vectorised(name: str, dtype: np.dtype) -> bool:
    loop = make_loop(VECTOR_MATH[name][dtype])
    loop(np.ones(8, dtype), np.empty(8, dtype))
    ir = loop.inspect_llvm(loop.signatures[0])
    return any(f"x {t}>" in ir for t in ("double", "float"))


# --- functions of two arguments: pow, arctan2 ----------------------------------------

def pow_sample(n: int, dtype: np.dtype, rng: np.random.Generator):
    """Ordinary operands, every exponent of x, results near overflow and
    underflow, bases near 1 with huge exponents, negative bases with integer
    exponents, and random bit patterns for both."""
    q = n // 6
    fi = np.finfo(dtype)
    near = rng.uniform(1.5, 3.0, q)
    sets = [
        (rng.uniform(0, 10, q), rng.uniform(-10, 10, q)),
        (np.exp2(rng.uniform(np.log2(float(fi.smallest_subnormal)), np.log2(float(fi.max)), q)),
         rng.uniform(-1, 1, q)),
        (near, (1 + rng.uniform(-0.01, 0.01, q)) * np.log(float(fi.max)) / np.log(near)
         * rng.choice([-1.05, 1.0], q)),
        (1 + rng.uniform(-1e-3, 1e-3, q), rng.uniform(-1e5, 1e5, q)),
        (-rng.uniform(0, 10, q), rng.integers(-60, 60, q).astype(np.float64)),
        (random_bits(n - 5 * q, dtype, rng), random_bits(n - 5 * q, dtype, rng)),
    ]
    with np.errstate(invalid="ignore", over="ignore"):
        return tuple(np.concatenate(parts).astype(dtype) for parts in zip(*sets))


def atan2_sample(n: int, dtype: np.dtype, rng: np.random.Generator):
    """(y, x): ordinary pairs, both over every binade, |y| close to |x| (where
    the quotient is swapped), and random bit patterns for both."""
    q = n // 4
    fi = np.finfo(dtype)

    def binades(k):
        lo, hi = np.log2(float(fi.smallest_subnormal)), np.log2(float(fi.max))
        return np.exp2(rng.uniform(lo, hi, k)) * rng.choice([-1.0, 1.0], k)

    x = rng.standard_normal(q)
    sets = [
        (rng.standard_normal(q), rng.standard_normal(q)),
        (binades(q), binades(q)),
        (x * (1 + rng.uniform(-1e-3, 1e-3, q)) * rng.choice([-1.0, 1.0], q), x),
        (random_bits(n - 3 * q, dtype, rng), random_bits(n - 3 * q, dtype, rng)),
    ]
    with np.errstate(invalid="ignore", over="ignore"):
        return tuple(np.concatenate(parts).astype(dtype) for parts in zip(*sets))


def random_bits(n: int, dtype: np.dtype, rng: np.random.Generator) -> np.ndarray:
    ut = np.uint64 if dtype == np.float64 else np.uint32
    return rng.integers(0, np.iinfo(ut).max, n, dtype=ut).view(dtype)


# Special pairs whose result must be NumPy's bit for bit: pow's exact results
# (0, inf, NaN, +-1); every arctan2 with a zero, infinite or NaN operand.
BINARY = {
    "power": (np.power, pow_sample,
              lambda x, y, want: np.isnan(want) | np.isinf(want) | (want == 0)
              | (np.abs(want) == 1)),
    "arctan2": (np.arctan2, atan2_sample,
                lambda y, x, want: ~np.isfinite(y) | ~np.isfinite(x) | (y == 0) | (x == 0)),
}
TIMING_RANGE2 = {"power": ((0.1, 3.0), (-2.0, 2.0)), "arctan2": ((-3.0, 3.0), (-3.0, 3.0))}


def make_loop2(f):
    @numba.njit(error_model="numpy")
    def loop(x, y, out):
        for i in range(x.size):
            out[i] = f(x[i], y[i])
    return loop


def binary_reference(fn, x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    wide = np.float64 if x.dtype == np.float32 else np.longdouble
    if wide is np.longdouble and not WIDE_LONGDOUBLE:
        return None
    return fn(x.astype(wide), y.astype(wide)).astype(x.dtype)


def binary_accuracy(name: str, n_points: int, dtype: np.dtype,
                    chunk: int = 1 << 21) -> dict:
    fn, sampler, exact_pair = BINARY[name]
    loop = make_loop2(VECTOR_MATH[name][dtype])
    rng = np.random.default_rng(zlib.crc32(f"{name}-{dtype.name}".encode()))
    x_all, y_all = sampler(n_points, dtype, rng)
    worst = worst_ref = numpy_ref = total = 0.0
    worst_xy, bad_kind = None, 0
    for s in range(0, x_all.size, chunk):
        x, y = x_all[s:s + chunk], y_all[s:s + chunk]
        out = np.empty_like(x)
        loop(x, y, out)
        with np.errstate(all="ignore"):
            want = fn(x, y)
            ref = binary_reference(fn, x, y)
        d = ulp_distance(out, want)
        total += d.sum()
        if d.max() > worst:
            worst, worst_xy = d.max(), (x[np.argmax(d)], y[np.argmax(d)])
        if ref is not None:
            worst_ref = max(worst_ref, ulp_distance(out, ref).max())
            numpy_ref = max(numpy_ref, ulp_distance(want, ref).max())
        bad_kind += int(np.count_nonzero(kind(out) != kind(want)))
    # Every pair of special operands.
    v = special_inputs(dtype)[::3]
    sx, sy = (a.ravel() for a in np.meshgrid(v, v))
    sout = np.empty_like(sx)
    loop(sx, sy, sout)
    with np.errstate(all="ignore"):
        swant = fn(sx, sy)
    u = f"u{dtype.itemsize}"
    same = (sout.view(u) == swant.view(u)) | (np.isnan(sout) & np.isnan(swant))
    special_bad = int(np.count_nonzero(exact_pair(sx, sy, swant) & ~same)) + int(
        np.count_nonzero(kind(sout) != kind(swant)))
    return dict(max_ulp=worst, mean_ulp=total / x_all.size, max_ulp_ref=worst_ref,
                numpy_ulp_ref=numpy_ref, worst=worst_xy, bad_kind=bad_kind,
                special_bad=special_bad, n_special=sx.size)


def binary_speed(sizes=(10**5, 10**6), repeat: int = 21) -> list[dict]:
    rows = []
    for name, (fn, _, _) in BINARY.items():
        for dtype in DTYPES:
            vm, lib = make_loop2(VECTOR_MATH[name][dtype]), make_loop2(fn)
            for n in sizes:
                rng = np.random.default_rng(n)
                (xa, xb), (ya, yb) = TIMING_RANGE2[name]
                x = rng.uniform(xa, xb, n).astype(dtype)
                y = rng.uniform(ya, yb, n).astype(dtype)
                out = np.empty_like(x)
                fns = (lambda xy, o, f=lib: f(*xy, o), lambda xy, o, f=vm: f(*xy, o),
                       lambda xy, o, f=fn: f(*xy, out=o))
                for f in fns:
                    f((x, y), out)
                r = repeat if n <= 10**5 else max(5, repeat // 3)
                t_lib, t_vm, t_np = median_times(fns, (x, y), out, r)
                rows.append(dict(name=name, dtype=dtype.name, n=n, lib=t_lib, vm=t_vm,
                                 np=t_np))
    return rows


def vectorised2(name: str, dtype: np.dtype) -> bool:
    loop = make_loop2(VECTOR_MATH[name][dtype])
    x = np.ones(8, dtype)
    loop(x, x, np.empty(8, dtype))
    return any(f"x {t}>" in loop.inspect_llvm(loop.signatures[0]) for t in ("double", "float"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1e6 points instead of 1e7")
    ap.add_argument("--no-speed", action="store_true", help="skip the timings")
    args = ap.parse_args()
    n_points = 10**6 if args.quick else 10**7

    ref_name = "long double" if WIDE_LONGDOUBLE else "n/a"
    print(f"## Accuracy ({n_points:,} points per row; ulp = units in the last place)\n")
    print("| function | dtype | max ulp vs NumPy | mean ulp vs NumPy | max ulp vs exact* "
          "| NumPy's max ulp vs exact* | worst x (vs NumPy) | kind mismatches "
          "| special inputs | vectorised |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    failures = 0
    for r in accuracy(n_points):
        specials = (f"{r['n_identical']}/{r['n_special']} identical"
                    + (f", {len(r['special_bad'])} WRONG" if r["special_bad"] else ", rest ok"))
        failures += len(r["special_bad"]) + r["bad_kind"]
        vec = "yes" if vectorised(r["name"], np.dtype(r["dtype"])) else "NO"
        print(f"| {r['name']} | {r['dtype']} | {r['max_ulp']:.0f} | {r['mean_ulp']:.4f} "
              f"| {r['max_ulp_ref']:.0f} | {r['numpy_ulp_ref']:.0f} | {r['worst_x']!r} "
              f"| {r['bad_kind']} | {specials} "
              f"| {vec} |")
        for a, b, c in r["special_bad"][:5]:
            print(f"|   | x={a!r} | got {b!r} | NumPy {c!r} | | | | | | |")
    for name in BINARY:
        for dtype in DTYPES:
            r = binary_accuracy(name, n_points, dtype)
            failures += r["special_bad"] + r["bad_kind"]
            vec = "yes" if vectorised2(name, dtype) else "NO"
            print(f"| {name} | {dtype.name} | {r['max_ulp']:.0f} | {r['mean_ulp']:.4f} "
                  f"| {r['max_ulp_ref']:.0f} | {r['numpy_ulp_ref']:.0f} "
                  f"| {tuple(float(v) for v in r['worst'])!r} | {r['bad_kind']} "
                  f"| {r['n_special']} pairs, {r['special_bad']} WRONG | {vec} |")
    print(f"\n*exact: float64 against the {ref_name} ufunc rounded to float64; "
          f"float32 against float64 NumPy rounded to float32. power, arctan2: pairs.\n")

    if not args.no_speed:
        print("## Speed (median seconds per call; ratios > 1 mean vecmath is faster)\n")
        print("| function | dtype | n | libm loop | vecmath loop | NumPy | libm / vecmath "
              "| NumPy / vecmath |")
        print("|---|---|---|---|---|---|---|---|")
        for r in speed() + binary_speed():
            print(f"| {r['name']} | {r['dtype']} | {r['n']:.0e} | {r['lib'] * 1e3:.3f} ms "
                  f"| {r['vm'] * 1e3:.3f} ms | {r['np'] * 1e3:.3f} ms "
                  f"| {r['lib'] / r['vm']:.2f} | {r['np'] / r['vm']:.2f} |")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
