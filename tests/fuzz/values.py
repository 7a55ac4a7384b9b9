"""Hypothesis strategies for the arguments of a fuzz program.

Arguments are built from *base* arrays and *views* of them, so that a case is
plain source text (``make_args()`` in a reproducer) and fresh copies with the
same aliasing and strides are one call away. Afterwards: every base is an
array (C-ordered); every argument is a base name or an expression of one
(Fortran order, step slices, transposes, negative strides, overlapping windows).
"""

from __future__ import annotations

from dataclasses import dataclass

import hypothesis.extra.numpy as hnp
import numpy as np
from hypothesis import strategies as st

DTYPES = ("bool", "int8", "int32", "int64", "uint8", "uint64", "float32", "float64",
          "complex64", "complex128")
# programs whose gradients are checked: real arguments, now and then complex ones
SMOOTH_DTYPES = ("float64", "float64", "complex128")
INT_DTYPES = ("int8", "int32", "int64", "uint8", "uint64")


@dataclass(frozen=True)
class Inputs:
    """``bases`` (name, array) and ``args``: expressions over the bases."""

    bases: tuple[tuple[str, np.ndarray], ...]
    args: tuple[str, ...]

    def build(self) -> tuple:
        """Fresh arguments: the bases copied, then the view expressions."""
        names = {name: arr.copy() for name, arr in self.bases}
        return tuple(eval(expr, {"np": np}, names) for expr in self.args)


def _specials(dtype: np.dtype) -> list:
    if dtype.kind == "c":  # special parts, and a special part beside an ordinary one
        parts = _specials(np.real(np.ones((), dtype)).dtype)
        return [complex(re, im) for re in parts[:5] for im in (parts[:5] + [1.0])]
    if dtype.kind == "f":
        info = np.finfo(dtype)
        return [np.nan, np.inf, -np.inf, -0.0, 0.0, float(info.max), float(info.tiny), 1.0,
                -1.0, 0.5]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [int(info.min), int(info.max), 0, 1, 2, info.max // 2 + 1] + (
            [-1, -2] if dtype.kind == "i" else [])
    return [False, True]


def elements(dtype: np.dtype, smooth: bool = False) -> st.SearchStrategy:
    """Typical small values, special values and the whole range of ``dtype``."""
    if smooth and dtype.kind == "c":  # gradient checks: finite, moderate values
        return st.complex_numbers(max_magnitude=2.0, allow_infinity=False, allow_nan=False)
    if smooth:
        return st.floats(-2.0, 2.0, width=dtype.itemsize * 8)
    if dtype.kind == "c":
        small = st.complex_numbers(max_magnitude=8, width=dtype.itemsize * 8)
        return st.one_of(small, st.sampled_from(_specials(dtype)), hnp.from_dtype(dtype))
    small = (st.floats(-8, 8, width=dtype.itemsize * 8) if dtype.kind == "f"
             else hnp.from_dtype(dtype, min_value=-4 if dtype.kind == "i" else 0, max_value=5)
             if dtype.kind in "iu" else st.booleans())
    return st.one_of(small, st.sampled_from(_specials(dtype)), hnp.from_dtype(dtype))


# A layout turns the wanted shape into (shape to draw, view expression).
_LAYOUTS = {
    "C": lambda s: (s, "{}"),
    "F": lambda s: (s, "np.asfortranarray({})"),
    "step": lambda s: ((2 * s[0], *s[1:]), "{}[::2]"),
    "reversed": lambda s: (s, "{}[::-1]"),
    "transposed": lambda s: (s[::-1], "{}.T"),
}


@st.composite
def _base(draw, name: str, shape: tuple[int, ...], dtype: np.dtype, smooth: bool):
    # np.asfortranarray makes a 0-d array 1-d; on 1-d arrays F is C
    usable = [k for k in _LAYOUTS if k == "C" or (len(shape) >= 2 if k == "F" else shape)]
    layout = draw(st.sampled_from(usable))
    drawn_shape, view = _LAYOUTS[layout](shape)
    arr = draw(hnp.arrays(dtype, drawn_shape, elements=elements(dtype, smooth)))
    return (name, arr), view.format(name)


def _aliases(expr: str, shape: tuple[int, ...]) -> list[tuple[str, str]]:
    """Pairs of arguments that share memory with the argument ``expr``."""
    pairs = [(expr, expr)]
    if shape and shape[0] > 1:
        pairs += [(f"{expr}[1:]", f"{expr}[:-1]"), (expr, f"{expr}[::-1]")]
    return pairs


@st.composite
def inputs(draw, smooth: bool = False) -> Inputs:
    """1-3 arrays of broadcastable shapes, maybe an aliased pair, maybe an index array."""
    n = draw(st.integers(1, 3))
    shapes = draw(hnp.mutually_broadcastable_shapes(
        num_shapes=n, min_dims=0, max_dims=3, min_side=0 if not smooth else 1, max_side=4)
    ).input_shapes
    dtypes = [np.dtype(draw(st.sampled_from(SMOOTH_DTYPES if smooth else DTYPES)))
              for _ in range(n)]
    bases, args = [], []
    for i, (shape, dtype) in enumerate(zip(shapes, dtypes)):
        base, expr = draw(_base(f"b{i}", shape, dtype, smooth))
        bases.append(base)
        args.append(expr)
    if draw(st.integers(0, 4)) == 0:  # aliasing: one base seen through two arguments
        i = draw(st.integers(0, n - 1))
        args[i:i + 1] = draw(st.sampled_from(_aliases(args[i], shapes[i])))
    if not smooth and draw(st.booleans()):  # run-time indices, in and out of range
        dtype = np.dtype(draw(st.sampled_from(["int64", "int32", "uint8"])))
        shape = draw(st.sampled_from([(), (1,), (2,), (3,)]))
        lo = 0 if dtype.kind == "u" else -6
        idx = draw(hnp.arrays(dtype, shape, elements=st.integers(lo, 6)))
        bases.append((f"b{len(bases)}", idx))
        args.append(f"b{len(bases) - 1}")
    return Inputs(tuple(bases), tuple(args))
