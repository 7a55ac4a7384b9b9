"""The C library's complex inverse trigonometric functions, called from
generated code as NumPy calls them (``cm.arcsin`` and its siblings).

NumPy's complex arcsin, arccos, arctan, arcsinh, arccosh and arctanh are the C
library's casin family (npymath uses them where the platform has them): the
branch cuts, the signs of zero and the values at infinities and NaNs are
glibc's careful algorithms, not a formula. Calling the same functions gives
NumPy's values bit for bit. They are reached by symbol name (registered with
LLVM at import, as ``buffers.py`` does for its own), so code calling them can
be kept on disk and loaded by another process.

A C ``double complex`` crosses calls by the platform's ABI. On x86-64 (System
V) it travels as two doubles, in and out; a ``float complex`` as one vector
of two floats. Elsewhere these ops refuse complex values
(ir/ops/elementwise.py's ``C_COMPLEX_CALLS``).
"""

from __future__ import annotations

import ctypes
import ctypes.util

import llvmlite.binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from jitaic.ir.ops.elementwise import C_COMPLEX_CALLS

_NAMES = ("casin", "cacos", "catan", "casinh", "cacosh", "catanh")


def _register() -> None:
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    for name in (*_NAMES, *(f"{n}f" for n in _NAMES)):
        llvm.add_symbol(name, ctypes.cast(getattr(libm, name), ctypes.c_void_p).value)


if C_COMPLEX_CALLS:
    _register()

_I32 = ir.IntType(32)


def _call_double(builder, name: str, z):
    d = ir.DoubleType()
    fnty = ir.FunctionType(ir.LiteralStructType([d, d]), [d, d])
    result = builder.call(cgutils.get_or_insert_function(builder.module, fnty, name),
                          [z.real, z.imag])
    return builder.extract_value(result, 0), builder.extract_value(result, 1)


def _call_float(builder, name: str, z):
    pair = ir.VectorType(ir.FloatType(), 2)
    fnty = ir.FunctionType(pair, [pair])
    packed = builder.insert_element(ir.Constant(pair, ir.Undefined), z.real,
                                    ir.Constant(_I32, 0))
    packed = builder.insert_element(packed, z.imag, ir.Constant(_I32, 1))
    result = builder.call(cgutils.get_or_insert_function(builder.module, fnty, f"{name}f"),
                          [packed])
    return (builder.extract_element(result, ir.Constant(_I32, 0)),
            builder.extract_element(result, ir.Constant(_I32, 1)))


def _typer(name: str):
    """The typer of an intrinsic calling C's ``name`` (``name``f for complex64)."""
    def typer(typingctx, z):
        if z not in (types.complex128, types.complex64):
            return None
        call = _call_double if z == types.complex128 else _call_float

        def codegen(ctx, builder, sig, args):
            real, imag = call(builder, name, ctx.make_complex(builder, z, args[0]))
            out = ctx.make_complex(builder, z)
            out.real, out.imag = real, imag
            return out._getvalue()

        return z(z), codegen

    return typer


# Each a module attribute of its own name: numba's on-disk cache of code
# calling an intrinsic finds it there.
@intrinsic
def arcsin(typingctx, z):
    return _typer("casin")(typingctx, z)


@intrinsic
def arccos(typingctx, z):
    return _typer("cacos")(typingctx, z)


@intrinsic
def arctan(typingctx, z):
    return _typer("catan")(typingctx, z)


@intrinsic
def arcsinh(typingctx, z):
    return _typer("casinh")(typingctx, z)


@intrinsic
def arccosh(typingctx, z):
    return _typer("cacosh")(typingctx, z)


@intrinsic
def arctanh(typingctx, z):
    return _typer("catanh")(typingctx, z)
