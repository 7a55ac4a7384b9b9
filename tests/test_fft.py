"""np.fft compiled natively: the runtime's FFT against NumPy's pocketfft on
every kind of length (powers of two, mixed radices, primes through
Bluestein's algorithm), the transforms' arguments, dtypes and errors as
NumPy's, and gradients against finite differences (JAX's convention for
complex inputs)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, finite_difference

import jitaic
from jitaic.lower import spectral

# 1..40 (radices 2, 3, 4, 5 and the primes up to 37 in Stockham stages), a
# prime beyond the largest radix and products with one (Bluestein), and
# longer mixed lengths
LENGTHS = [*range(1, 41), 41, 47, 2 * 53, 97, 128, 360, 1000, 1024, 1031, 3 * 2**10, 37 * 41]


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("real", [False, True], ids=["complex", "real"])
def test_the_runtime_fft_is_numpys_to_rounding(inverse, real, rng) -> None:
    """Real lanes of even length go through a complex FFT of half their length."""
    for n in LENGTHS:
        x = rng.normal(size=n) + (0 if real else 1j * rng.normal(size=n))
        plan = spectral.plan(n, real)
        out = np.empty(n, np.complex128)
        spectral.fft_into(x, out, *plan, np.empty(2 * len(plan[1]), np.complex128), inverse)
        want = np.fft.ifft(x, norm="forward") if inverse else np.fft.fft(x)
        np.testing.assert_allclose(out, want, rtol=0, atol=1e-14 * np.abs(want).max(),
                                   err_msg=f"length {n}")


def test_infinities_give_pocketffts_values_on_small_radices() -> None:
    """The butterflies of radices 2, 3 and 4 multiply by no root that is 1
    and scale by parts, as pocketfft does: no NaN from inf * 0."""
    for x in ([np.inf, 1, 2, 3], [1, np.inf, 2], [1, np.inf, 2, 4, 5, 6, 7, 8, 9],
              [np.inf, 0, 0, 0, 0, 0]):
        x = np.array(x, np.complex128)
        plan = spectral.plan(len(x), False)
        out = np.empty_like(x)
        spectral.fft_into(x, out, *plan, np.empty(2 * len(plan[1]), np.complex128), False)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(out, np.fft.fft(x))


def transforms(x, z):
    return (np.fft.fft(x), np.fft.ifft(z), np.fft.fft(x, axis=0), np.fft.fft(z, n=5),
            np.fft.fft(x, n=11, norm="ortho"), np.fft.ifft(z, norm="forward"),
            np.fft.rfft(x), np.fft.rfft(x, n=7, axis=0), np.fft.irfft(z), np.fft.irfft(z, n=9),
            np.fft.irfft(z, n=4, axis=0, norm="ortho"), np.fft.hfft(z), np.fft.ihfft(x),
            np.fft.fft2(z), np.fft.ifft2(z, s=(4, 5)), np.fft.fftn(x, axes=(0, 0)),
            np.fft.rfft2(x), np.fft.irfft2(z), np.fft.rfftn(x, s=(2, 6), axes=(1, 0)),
            np.fft.irfftn(z, s=(4, 9), axes=(0, 1), norm="forward"),
            np.fft.fft(x[0], n=67), np.fft.fftshift(np.fft.fft(x), axes=1))


def test_transforms_are_numpys(rng) -> None:
    x = rng.normal(size=(3, 8))
    z = x + 1j * rng.normal(size=(3, 8))
    assert_same(jitaic.jit(transforms, callbacks=False)(x, z), transforms(x, z))


@pytest.mark.parametrize("dtype, want", [(np.float32, np.complex64), (np.int8, np.complex128),
                                         (np.bool_, np.complex128), (np.complex64, np.complex64)])
def test_result_dtypes_are_numpys(dtype, want) -> None:
    a = np.arange(1, 7).astype(dtype)

    def spectra(a):
        return np.fft.fft(a), np.fft.ifft2(a.reshape(2, 3)), np.fft.irfft(a)

    got = jitaic.jit(spectra, callbacks=False)(a)
    assert [g.dtype for g in got] == [want, want, np.dtype(want).char.lower()]
    assert_same(got, spectra(a))


@pytest.mark.parametrize("call", [
    lambda a: np.fft.fft(a, n=0), lambda a: np.fft.fft(a, norm="x"),
    lambda a: np.fft.irfft(a[:, :1]), lambda a: np.fft.fft(a[0, 0]),
    lambda a: np.fft.fft(a, axis=2), lambda a: np.fft.fft(a, n=3, axis=2),
    lambda a: np.fft.rfftn(a, axes=()), lambda a: np.fft.fftn(a, s=(4,), axes=(0, 1)),
    lambda a: np.fft.fft(a[:, :0]), lambda a: np.fft.rfft(a + 0j),
], ids=["n=0", "norm", "irfft of one", "0-d", "axis", "axis with n", "rfftn of no axes",
        "s and axes", "empty lanes", "rfft of complex"])
def test_errors_are_numpys_and_name_the_line(call) -> None:
    a = np.ones((2, 3))
    with pytest.raises(Exception) as numpy_error:
        call(a)
    # NumPy's own subclasses (AxisError, its ufunc loop errors) by their builtin base
    builtin = next(c for c in type(numpy_error.value).__mro__ if c.__module__ == "builtins")
    with pytest.raises(builtin) as ours:
        jitaic.jit(call, callbacks=False)(a)
    if builtin is not TypeError:  # (NumPy's names its ufunc loop; ours says why)
        assert str(numpy_error.value) in str(ours.value)
    assert "test_fft.py:" in str(ours.value)


def test_empty_lanes_and_padding_of_empty_axes_are_numpys() -> None:
    f = jitaic.jit(lambda a, b: (np.fft.fft(a), np.fft.fft(b, n=2)), callbacks=False)
    a, b = np.zeros((0, 3)), np.zeros((3, 0))
    assert_same(f(a, b), (np.fft.fft(a), np.fft.fft(b, n=2)))


def power_spectrum(x, w):
    return (np.abs(np.fft.fft(x)) ** 2 * w).sum()


def real_transforms(x, w):
    spectrum = np.fft.rfft(x, n=10)
    back = np.fft.irfft(np.fft.fft(x) * w, n=7)
    return (spectrum.real * w[:, :6]).sum() + spectrum.imag.sum() + (back ** 3).sum()


def two_dimensional(x, w):
    return (np.cos(np.fft.fft2(x, norm="ortho")).real * w).sum() + np.fft.hfft(x)[1].sum()


def bluestein(x, w):
    return np.abs(np.fft.ifft(x * w, n=67, axis=0)).sum()


@pytest.mark.parametrize("loss", [power_spectrum, real_transforms, two_dimensional, bluestein])
def test_gradients_are_finite_differences(loss, rng) -> None:
    x, w = rng.normal(size=(3, 8)), rng.normal(size=(3, 8))
    np.testing.assert_allclose(jitaic.grad(loss)(x, w), finite_difference(loss, (x, w), 0),
                               rtol=1e-6, atol=1e-8)


def of_complex_input(z, w):
    return (np.abs(np.fft.fft(z, n=9)) ** 2 * w).sum() + np.fft.irfft(z)[0, 3]


def test_gradients_of_complex_inputs_follow_jaxs_convention(rng) -> None:
    z = rng.normal(size=(3, 8)) + 1j * rng.normal(size=(3, 8))
    w = rng.normal(size=(3, 1))
    np.testing.assert_allclose(jitaic.grad(of_complex_input)(z, w),
                               finite_difference(of_complex_input, (z, w), 0),
                               rtol=1e-6, atol=1e-8)
