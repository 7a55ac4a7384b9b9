"""numpy.fft: the complex, real and Hermitian transforms in one and n
dimensions, and the shifts of their frequencies.

Every transform is the ``fft`` op (the unnormalised DFT of each lane along
the last axis) with NumPy's cropping or zero-padding to ``n``, its axis moved
last and back, and the scaling ``norm`` asks for around it. The real
transforms are complex ones: rfft keeps the first n // 2 + 1 frequencies;
irfft rebuilds the Hermitian-symmetric spectrum first and keeps the real
part (so the imaginary parts of the frequencies 0 and n / 2 have no effect,
as in NumPy). Gradients follow from the op's (its own transpose) and those
of the slicing, padding and casts around it.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from jitaic.errors import at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer, emit
from jitaic.tracer.numpy.common import (
    as_tracer,
    astype,
    full_value,
    normalize_axes,
    not_lowered,
    unsupported,
)
from jitaic.tracer.numpy.rearranging import along, roll
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import concatenate, swapaxes
from jitaic.tracer.numpy.ufuncs import apply_ufunc, real

_NORMS = (None, "backward", "ortho", "forward")


def _scale(norm, n: int, inverse: bool) -> float:
    """The factor np.fft applies to a transform of length n in this direction."""
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or '
                         f'"forward".{at(user_location())}')
    if norm == "ortho":
        return 1 / np.sqrt(n)
    return 1 / n if inverse == (norm in (None, "backward")) else 1.0


def _length(n, default: int) -> int:
    if isinstance(n, Tracer):
        raise not_lowered("np.fft with a length n the function computes")
    n = default if n is None else operator.index(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified."
                         f"{at(user_location())}")
    return n


def _fitted(x: Tracer, axis: int, n: int) -> Tracer:
    """x cropped or zero-padded to length n along ``axis``, as np.fft does."""
    have = x.shape[axis]
    if have >= n:
        return along(x, axis, slice(0, n)) if have > n else x
    shape = tuple(n - have if d == axis else s for d, s in enumerate(x.shape))
    return concatenate([x, full_value(shape, 0, x.dtype)], axis=axis)


def _operand(a, out, name: str) -> Tracer:
    if out is not None:
        raise unsupported(f"np.fft.{name}(out=)")
    x = as_tracer(a)
    if None in x.shape:
        raise not_lowered(f"np.fft.{name} of an array whose shape is known only when the "
                          f"code runs")
    return x


def _complex_dtype(x: Tracer) -> np.dtype:
    """complex64 for float16 and float32 (and complex64), else complex128."""
    single = x.dtype in (np.float16, np.float32, np.complex64)
    return np.dtype(np.complex64 if single else np.complex128)


def _inexact(x: Tracer) -> Tracer:
    """x as the fft op takes it: float32, float64 or complex (NumPy's
    precision for the others)."""
    if x.dtype in (np.float32, np.float64) or x.dtype.kind == "c":
        return x
    return astype(x, _complex_dtype(x).char.lower(), copy=False)


def _axis(x: Tracer, axis, n) -> int:
    if n is None and not -x.ndim <= operator.index(axis) < x.ndim:  # (NumPy reads x.shape[axis])
        raise IndexError(f"tuple index out of range{at(user_location())}")
    (axis,) = normalize_axes(axis, x.ndim)
    return axis


def _transform(x: Tracer, n: int, axis: int, norm, inverse: bool) -> Tracer:
    """The complex DFT of length n along ``axis``, scaled as ``norm`` says."""
    x = _fitted(_inexact(x), axis, n)
    last = x.ndim - 1
    y = swapaxes(emit(ops.fft, [swapaxes(x, axis, last)], {"inverse": inverse}, scalar=False),
                 axis, last)
    factor = _scale(norm, n, inverse)
    return y if factor == 1.0 else y * np.array(factor, y.dtype.char.lower())


def _c2c(a, n, axis, norm, out, name: str, inverse: bool) -> Tracer:
    x = _operand(a, out, name)
    axis = _axis(x, axis, n)
    return _transform(x, _length(n, x.shape[axis]), axis, norm, inverse)


@implements(np.fft.fft)
def fft(a, n=None, axis=-1, norm=None, out=None):
    return _c2c(a, n, axis, norm, out, "fft", inverse=False)


@implements(np.fft.ifft)
def ifft(a, n=None, axis=-1, norm=None, out=None):
    return _c2c(a, n, axis, norm, out, "ifft", inverse=True)


def _real_operand(a, out, name: str) -> Tracer:
    x = _operand(a, out, name)
    if x.dtype.kind == "c":
        raise TypeError(f"np.fft.{name} of complex values: NumPy has no loop for them"
                        f"{at(user_location())}")
    return _inexact(x)


@implements(np.fft.rfft)
def rfft(a, n=None, axis=-1, norm=None, out=None):
    x = _real_operand(a, out, "rfft")
    axis = _axis(x, axis, n)
    n = _length(n, x.shape[axis])
    return along(_transform(x, n, axis, norm, inverse=False), axis, slice(0, n // 2 + 1))


@implements(np.fft.irfft)
def irfft(a, n=None, axis=-1, norm=None, out=None):
    x = _operand(a, out, "irfft")
    axis = _axis(x, axis, n)
    n = _length(n, 2 * (x.shape[axis] - 1))
    x = _fitted(astype(x, _complex_dtype(x), copy=False), axis, n // 2 + 1)
    # the frequencies above n // 2 are the conjugates of those below
    mirrored = along(x, axis, slice(n - n // 2 - 1, 0, -1))
    full = concatenate([x, apply_ufunc(np.conjugate, mirrored)], axis=axis)
    return real(_transform(full, n, axis, norm, inverse=True))


def _swapped(norm):
    """The norm of the opposite direction (hfft is an irfft, ihfft an rfft)."""
    _scale(norm, 1, False)
    return {None: "forward", "backward": "forward", "forward": "backward"}.get(norm, norm)


@implements(np.fft.hfft)
def hfft(a, n=None, axis=-1, norm=None, out=None):
    x = _operand(a, out, "hfft")
    return irfft(apply_ufunc(np.conjugate, x), n, axis, _swapped(norm))


@implements(np.fft.ihfft)
def ihfft(a, n=None, axis=-1, norm=None, out=None):
    return apply_ufunc(np.conjugate, rfft(a, n, axis, _swapped(norm), out))


def _shape_and_axes(x: Tracer, s, axes) -> tuple[list[int | None], tuple[int, ...]]:
    """np.fft's n-dimensional arguments: a length (None: the axis's own) per axis."""
    if s is not None and axes is None:
        warnings.warn("`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy "
                      "2.0). In a future version of NumPy, this will raise an error and `s[i]` "
                      "will correspond to the size along the transformed axis specified by "
                      "`axes[i]`. To retain current behaviour, pass a sequence [0, ..., k-1] "
                      "to `axes` for an array of dimension k.", DeprecationWarning, stacklevel=4)
    if axes is None:
        axes = tuple(range(-len(s), 0)) if s is not None else tuple(range(x.ndim))
    axes = tuple(normalize_axes(ax, x.ndim)[0] for ax in axes)  # repeats are NumPy's too
    if s is None:
        return [None] * len(axes), axes
    if isinstance(s, Tracer) or any(isinstance(v, Tracer) for v in s):
        raise not_lowered("np.fft with a shape s the function computes")
    if len(s) != len(axes):
        raise ValueError(f"Shape and axes have different lengths.{at(user_location())}")
    return [None if operator.index(v) == -1 else v for v in s], axes


def _c2c_n(a, s, axes, norm, out, name: str, inverse: bool) -> Tracer:
    x = _operand(a, out, name)
    lengths, axes = _shape_and_axes(x, s, axes)
    for n, axis in reversed(list(zip(lengths, axes, strict=True))):
        x = _transform(x, _length(n, x.shape[axis]), axis, norm, inverse)
    return x


@implements(np.fft.fftn)
def fftn(a, s=None, axes=None, norm=None, out=None):
    return _c2c_n(a, s, axes, norm, out, "fftn", inverse=False)


@implements(np.fft.ifftn)
def ifftn(a, s=None, axes=None, norm=None, out=None):
    return _c2c_n(a, s, axes, norm, out, "ifftn", inverse=True)


@implements(np.fft.fft2)
def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _c2c_n(a, s, axes, norm, out, "fft2", inverse=False)


@implements(np.fft.ifft2)
def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _c2c_n(a, s, axes, norm, out, "ifft2", inverse=True)


def _some_axis(axes: tuple) -> None:
    """The real n-dimensional transforms need a last axis (NumPy's error)."""
    if not axes:
        raise IndexError(f"list index out of range{at(user_location())}")


@implements(np.fft.rfftn)
def rfftn(a, s=None, axes=None, norm=None, out=None):
    """rfft along the last axis, then the complex transform along the others."""
    x = _real_operand(a, out, "rfftn")
    lengths, axes = _shape_and_axes(x, s, axes)
    _some_axis(axes)
    x = rfft(x, lengths[-1], axes[-1], norm)
    for n, axis in reversed(list(zip(lengths[:-1], axes[:-1], strict=True))):
        x = _transform(x, _length(n, x.shape[axis]), axis, norm, inverse=False)
    return x


@implements(np.fft.irfftn)
def irfftn(a, s=None, axes=None, norm=None, out=None):
    """The inverse complex transforms along all but the last axis, then irfft."""
    x = _operand(a, out, "irfftn")
    lengths, axes = _shape_and_axes(x, s, axes)
    _some_axis(axes)
    for n, axis in reversed(list(zip(lengths[:-1], axes[:-1], strict=True))):
        x = _transform(x, _length(n, x.shape[axis]), axis, norm, inverse=True)
    return irfft(x, lengths[-1], axes[-1], norm)


@implements(np.fft.rfft2)
def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return rfftn(a, s, axes, norm, out)


@implements(np.fft.irfft2)
def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return irfftn(a, s, axes, norm, out)


def _shift(x, axes, sign: int) -> Tracer:
    x = as_tracer(x)
    axes = tuple(range(x.ndim)) if axes is None else axes
    axes = normalize_axes(axes, x.ndim)
    return roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axes)


@implements(np.fft.fftshift)
def fftshift(x, axes=None):
    return _shift(x, axes, 1)


@implements(np.fft.ifftshift)
def ifftshift(x, axes=None):
    return _shift(x, axes, -1)
