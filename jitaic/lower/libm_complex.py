"""The C library's complex functions, called from generated code as NumPy
calls them (``cm.sqrt``, ``cm.arcsin``, ``cm.cpow`` and their siblings).

NumPy's complex sqrt, exp, the trigonometric and hyperbolic functions and
their inverses, and its general complex power, are the C library's csqrt,
cexp, csin ... catanh and cpow (npymath uses them where the platform has
them): the branch cuts, the signs of zero and the values at infinities, NaNs
and overflow are the C library's careful algorithms, not a formula. Calling
the same functions gives NumPy's values bit for bit. They are reached by
symbol name (registered with LLVM at import, as ``buffers.py`` does for its
own), so code calling them can be kept on disk and loaded by another process.

A C ``double complex`` crosses calls by the platform's ABI. On x86-64 (System
V) it travels as two doubles, in and out; a ``float complex`` as one vector
of two floats. Elsewhere the ops that need these functions refuse complex
values (ir/ops/elementwise.py's ``C_COMPLEX_CALLS``).
"""

from __future__ import annotations

import ctypes
import ctypes.util

import llvmlite.binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils

from jitaic.ir.ops.elementwise import C_COMPLEX_CALLS
from jitaic.lower.runtime import fixed_arity_intrinsic

# generated code's name -> the C function (its float variant ends in f)
UNARY = {"sqrt": "csqrt", "exp": "cexp", "sin": "csin", "cos": "ccos", "tan": "ctan",
         "sinh": "csinh", "cosh": "ccosh", "arcsin": "casin", "arccos": "cacos",
         "arctan": "catan", "arcsinh": "casinh", "arccosh": "cacosh", "arctanh": "catanh"}
BINARY = {"cpow": "cpow"}

_I32 = ir.IntType(32)


def _register() -> None:
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    for name in (*UNARY.values(), *BINARY.values()):
        for symbol in (name, f"{name}f"):
            llvm.add_symbol(symbol, ctypes.cast(getattr(libm, symbol), ctypes.c_void_p).value)


def _double_parts(builder, z) -> list:
    return [z.real, z.imag]


def _float_pair(builder, z) -> list:
    pair = ir.VectorType(ir.FloatType(), 2)
    packed = builder.insert_element(ir.Constant(pair, ir.Undefined), z.real,
                                    ir.Constant(_I32, 0))
    return [builder.insert_element(packed, z.imag, ir.Constant(_I32, 1))]


def _typer(c_name: str):
    """The typer of an intrinsic calling C's ``c_name`` on complex128 values
    (``c_name``f on complex64 ones), all of one type."""
    def typer(typingctx, *zs):
        z = zs[0]
        if z not in (types.complex128, types.complex64) or any(t != z for t in zs):
            return None
        double = z == types.complex128
        if double:
            d = ir.DoubleType()
            fnty = ir.FunctionType(ir.LiteralStructType([d, d]), [d, d] * len(zs))
        else:
            pair = ir.VectorType(ir.FloatType(), 2)
            fnty = ir.FunctionType(pair, [pair] * len(zs))

        def codegen(ctx, builder, sig, args):
            parts = _double_parts if double else _float_pair
            values = [v for a in args for v in parts(builder, ctx.make_complex(builder, z, a))]
            name = c_name if double else f"{c_name}f"
            result = builder.call(cgutils.get_or_insert_function(builder.module, fnty, name),
                                  values)
            out = ctx.make_complex(builder, z)
            if double:
                out.real, out.imag = (builder.extract_value(result, k) for k in (0, 1))
            else:
                out.real, out.imag = (builder.extract_element(result, ir.Constant(_I32, k))
                                      for k in (0, 1))
            return out._getvalue()

        return z(*zs), codegen

    return typer


if C_COMPLEX_CALLS:
    _register()
# Each a module attribute of its own name: numba's on-disk cache of code
# calling an intrinsic finds it there.
for _name, _c in UNARY.items():
    globals()[_name] = fixed_arity_intrinsic(_name, 1, _typer(_c), __name__)
for _name, _c in BINARY.items():
    globals()[_name] = fixed_arity_intrinsic(_name, 2, _typer(_c), __name__)
