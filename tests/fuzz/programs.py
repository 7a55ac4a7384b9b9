"""Random programs: the Hypothesis strategy ``cases()`` for fuzz cases.

A program is built one statement at a time, and every candidate statement is
run with NumPy on the arguments after the statements before it. So the
generator knows the value (shape, dtype) of every variable and picks
operations and operands that fit: most programs run. A statement NumPy
rejects (IndexError, ValueError, OverflowError, ...) is kept only sometimes,
as the program's last, so that jitaic's errors are checked too.

Afterwards: a program is ``def f(<params>):``, 1-8 statements (assignments,
in-place updates of arguments and of views of them, ``if``/``else``, ``for``
over a range, a ``while`` with a counter bound), and a ``return`` of one or
two values; every variable it reads is defined on every path to the read.
"""

from __future__ import annotations

import ast
import contextlib
import signal
from collections.abc import Callable

import numpy as np
from hypothesis import strategies as st

from .case import Case
from .oracle import quiet
from .values import Inputs, inputs

PARAMS = "abcd"
MAX_STATEMENTS = 8

# Templates, each with the operand dtype kinds it accepts.
UNARY = {
    "np.abs({})": "biufc", "-{}": "iufc", "np.square({})": "biufc", "np.sqrt({})": "biufc",
    "np.exp({})": "biufc", "np.log({})": "biufc", "np.sin({})": "biufc", "np.cos({})": "biufc",
    "np.tanh({})": "biufc", "np.log1p({})": "biuf", "np.expm1({})": "biuf",
    "np.arctan({})": "biuf", "np.floor({})": "biuf", "np.ceil({})": "biuf",
    "np.rint({})": "biuf", "np.sign({})": "iuf", "np.isnan({})": "biufc",
    "np.isfinite({})": "biufc", "np.logical_not({})": "biufc", "~{}": "biu",
    "np.invert({})": "biu", "abs({})": "biufc", "np.negative({})": "iufc",
}
BINARY = {
    "{} + {}": "biufc", "{} - {}": "iufc", "{} * {}": "biufc", "{} / {}": "biufc",
    "{} // {}": "biuf", "{} % {}": "biuf", "{} ** {}": "biufc", "{} == {}": "biufc",
    "{} != {}": "biufc", "{} < {}": "biuf", "{} <= {}": "biuf", "{} > {}": "biuf",
    "{} >= {}": "biuf", "np.maximum({}, {})": "biuf", "np.minimum({}, {})": "biuf",
    "np.fmax({}, {})": "biuf", "np.arctan2({}, {})": "biuf",
    "np.logical_and({}, {})": "biufc", "{} << {}": "biu", "{} >> {}": "biu",
    "{} & {}": "biu", "{} | {}": "biu", "{} ^ {}": "biu", "np.left_shift({}, {})": "biu",
}
# NumPy computes these in float16 for 1-byte operands, a dtype jitaic refuses
FLOAT_RESULT = {"np.sqrt({})", "np.exp({})", "np.log({})", "np.sin({})", "np.cos({})",
                "np.tanh({})", "np.log1p({})", "np.expm1({})", "np.arctan({})", "np.rint({})",
                "np.arctan2({}, {})"}
# (name, keyword arguments it takes); "axis1": an int or None, not a tuple
REDUCTIONS = {
    "sum": ("axis", "keepdims", "dtype"), "max": ("axis", "keepdims"),
    "min": ("axis", "keepdims"), "mean": ("axis", "keepdims", "dtype"),
    "prod": ("axis", "keepdims", "dtype"), "any": ("axis", "keepdims"),
    "all": ("axis", "keepdims"), "argmax": ("axis1", "keepdims"),
    "argmin": ("axis1", "keepdims"), "var": ("axis", "keepdims", "dtype", "ddof"),
    "std": ("axis", "keepdims", "dtype", "ddof"), "cumsum": ("axis1", "dtype"),
    "cumprod": ("axis1", "dtype"),
}
# Differentiable, smooth everywhere on finite values: programs of these get
# their gradients checked.
SMOOTH_UNARY = {"np.sin({})": "fc", "np.cos({})": "fc", "np.tanh({})": "fc", "-{}": "fc",
                "np.square({})": "fc", "np.exp({})": "fc", "{} ** 2": "fc", "{} / 3.0": "fc",
                "np.conj({})": "c", "{}.real": "c", "{}.imag": "c", "np.abs({})": "c",
                "({} * (0.5 - 2j))": "f"}
SMOOTH_BINARY = {"{} + {}": "fc", "{} - {}": "fc", "{} * {}": "fc"}
SMOOTH_REDUCTIONS = {k: REDUCTIONS[k] for k in ("sum", "mean", "prod", "var", "cumsum")}

# NumPy functions beyond the operators: {x} and {y} are the operands. A call
# NumPy rejects for these operands is dropped, or kept last to check the error.
CALLS = {
    # sorting, selection, sets
    "np.sort({x})": "biufc", "np.sort({x}, axis=None)": "biufc",
    "np.sort({x}, axis=0)": "biuf", "np.argsort({x}, kind='stable')": "biuf",
    "np.sort(np.partition({x}, 1))": "biuf", "np.partition({x}, -1)[..., -1]": "biuf",
    "np.unique({x})": "biufc", "np.unique({x}, return_counts=True)[1]": "biuf",
    "np.unique({x}, return_inverse=True)[1]": "biuf", "np.isin({x}, {y})": "biuf",
    "np.union1d({x}, {y})": "biuf", "np.intersect1d({x}, {y})": "biuf",
    "np.setdiff1d({x}, {y})": "biuf", "np.setxor1d({x}, {y})": "biuf",
    "np.searchsorted(np.sort({x}, axis=None), {y})": "biuf",
    "np.count_nonzero({x})": "biufc", "np.flatnonzero({x})": "biufc",
    "np.argwhere({x})": "biufc", "np.nonzero({x})[-1]": "biufc", "np.trim_zeros({x})": "biuf",
    # statistics and NaN-aware reductions
    "np.median({x})": "biuf", "np.median({x}, axis=-1)": "biuf",
    "np.quantile({x}, 0.3)": "biuf", "np.percentile({x}, [10, 90], axis=0)": "iuf",
    "np.nansum({x})": "fc", "np.nanmax({x}, axis=0)": "f", "np.nanmin({x})": "f",
    "np.nanmean({x})": "f", "np.nanargmax({x})": "f", "np.nanmedian({x})": "f",
    "np.nancumsum({x})": "f", "np.nanvar({x})": "f", "np.ptp({x})": "iuf",
    "np.histogram({x}, bins=3)[0]": "iuf", "np.bincount({x})": "biu",
    "np.average({x}, axis=0)": "biuf", "np.trapezoid({x})": "iuf",
    # shapes
    "np.diff({x})": "biufc", "np.flip({x})": "biufc", "np.roll({x}, 2)": "biufc",
    "np.roll({x}, -1, axis=0)": "biufc", "np.ravel({x})": "biufc",
    "np.transpose({x})": "biufc", "np.reshape({x}, -1)": "biufc", "np.squeeze({x})": "biufc",
    "np.expand_dims({x}, 0)": "biufc", "np.atleast_2d({x})": "biufc",
    "np.tile({x}, 2)": "biufc", "np.repeat({x}, 2)": "biufc", "np.repeat({x}, 2, axis=0)": "biuf",
    "np.moveaxis({x}, 0, -1)": "biufc", "np.swapaxes({x}, 0, -1)": "biuf",
    "np.concatenate(({x}, {y}))": "biufc", "np.concatenate(({x}, {y}), axis=None)": "biufc",
    "np.stack(({x}, {y}))": "biufc", "np.hstack(({x}, {y}))": "biuf",
    "np.vstack(({x}, {y}))": "biuf", "np.append({x}, {y})": "biufc",
    "np.broadcast_to({x}, (2,) + np.shape({x}))": "biufc",
    # elementwise functions
    "np.clip({x}, 0, 3)": "iuf", "np.round({x}, 1)": "biuf", "np.around({x}, -1)": "iuf",
    "np.trunc({x})": "biuf", "np.fix({x})": "iuf", "np.sinc({x})": "iuf", "np.cbrt({x})": "iuf",
    "np.exp2({x})": "iuf", "np.log2({x})": "iufc", "np.log10({x})": "iufc",
    "np.arcsinh({x})": "iufc", "np.deg2rad({x})": "iuf", "np.signbit({x})": "biuf",
    "np.isinf({x})": "biufc", "np.real({x})": "biufc", "np.imag({x})": "biufc",
    "np.angle({x})": "biufc", "np.conj({x})": "biufc", "np.reciprocal({x})": "iufc",
    "np.frexp({x})[0]": "iuf", "np.modf({x})[1]": "iuf", "np.spacing({x})": "iuf",
    "np.nan_to_num({x})": "biufc", "np.fabs({x})": "iuf", "np.positive({x})": "iufc",
    "np.hypot({x}, {y})": "biuf", "np.copysign({x}, {y})": "biuf", "np.fmod({x}, {y})": "biuf",
    "np.divmod({x}, {y})[0]": "iuf", "np.heaviside({x}, {y})": "biuf",
    "np.logaddexp({x}, {y})": "biuf", "np.nextafter({x}, {y})": "f",
    "np.ldexp({x}, {y})": "biuf", "np.gcd({x}, {y})": "biu", "np.lcm({x}, {y})": "biu",
    "np.fmin({x}, {y})": "biuf", "np.float_power({x}, {y})": "biufc",
    "np.logical_xor({x}, {y})": "biufc", "np.right_shift({x}, {y})": "biu",
    "np.isclose({x}, {y})": "biuf",
    # indexing routines and functional forms
    "np.take({x}, [0, -1])": "biufc", "np.take({x}, [1, 0], axis=-1)": "biuf",
    "np.take_along_axis({x}, np.argsort({x}, axis=-1), -1)": "biuf",
    "np.where({x})[0]": "biufc", "np.select([{x} > 0], [{x}])": "iuf",
    "np.digitize({x}, np.sort({y}, axis=None))": "iuf",
    "np.apply_along_axis(np.sort, -1, {x})": "biuf",
    "np.apply_along_axis(np.sum, 0, {x})": "biufc",
    "np.einsum('...i->...', {x})": "iufc", "np.einsum('ij->ji', {x})": "biufc",
    "np.partition({x}, 0, axis=None)[0]": "biuf", "np.cumsum({x}, axis=-1)": "biufc",
    # products and polynomials
    "np.dot({x}, {y})": "biufc", "np.outer({x}, {y})": "biufc", "np.inner({x}, {y})": "biuf",
    "np.tensordot({x}, {y}, 0)": "biuf", "np.kron({x}, {y})": "biuf",
    "np.convolve({x}, {y})": "biuf", "np.correlate({x}, {y}, 'full')": "biuf",
    "np.polyval({x}, {y})": "iuf", "np.cross({x}, {y})": "iuf",
}
# calls whose result is a float16 for 1-byte operands (jitaic refuses float16)
CALLS_FLOAT16 = {"np.sinc({x})", "np.cbrt({x})", "np.exp2({x})", "np.log2({x})",
                 "np.log10({x})", "np.arcsinh({x})", "np.deg2rad({x})", "np.hypot({x}, {y})",
                 "np.copysign({x}, {y})", "np.heaviside({x}, {y})", "np.logaddexp({x}, {y})",
                 "np.ldexp({x}, {y})", "np.float_power({x}, {y})", "np.spacing({x})",
                 "np.frexp({x})[0]", "np.modf({x})[1]", "np.fmod({x}, {y})", "np.fix({x})",
                 "np.trunc({x})", "np.fabs({x})", "np.reciprocal({x})"}
# differentiable calls for the programs whose gradients are checked
SMOOTH_CALLS = {
    "np.sort({x})": "f", "np.flip({x})": "fc", "np.roll({x}, 1)": "fc", "np.diff({x})": "fc",
    "np.transpose({x})": "fc", "np.tile({x}, 2)": "fc", "np.repeat({x}, 2)": "fc",
    "np.concatenate(({x}, {y}))": "fc", "np.stack(({x}, {y}))": "fc",
    "np.dot({x}, {y})": "fc", "np.outer({x}, {y})": "fc", "np.kron({x}, {y})": "f",
    "np.convolve({x}, {y})": "f", "np.cumprod({x})": "fc", "np.hypot({x}, {y})": "f",
    "np.linalg.norm({x})": "fc", "np.median({x})": "f", "np.trace(np.atleast_2d({x}))": "fc",
    "np.fft.fft({x})": "fc", "np.fft.ifft({x})": "fc", "np.fft.rfft({x})": "f",
    "np.fft.irfft({x})": "c", "np.expand_dims({x}, -1)": "fc", "np.nansum({x})": "f",
    "np.logaddexp({x}, {y})": "f", "np.polyval({x}, {y})": "f",
}

CASTS = ("np.float64", "np.int64", "np.int32", "np.int8", "np.uint8", "np.float32",
         "np.bool_", "np.uint64", "np.complex128", "np.complex64")
INT_CONSTS = ("1", "2", "0", "-1", "3", "7", "63", "64", "300", "-128", "2 ** 31",
              "2 ** 63 - 1", "-2 ** 63", "2 ** 64", "np.int8(-128)", "np.uint64(2 ** 64 - 1)")
FLOAT_CONSTS = ("0.5", "2.0", "-1.5", "-0.0", "0.0", "1e300", "np.nan", "np.inf", "-np.inf",
                "np.float32(0.1)")
COMPLEX_CONSTS = ("1j", "(2 - 0.5j)", "0.5", "complex(np.nan, 1.0)", "complex(-0.0, np.inf)")
BASIC_INDEX = ("0", "1:", "::-1", "-1", "::2", ":-1", "None", "..., 0", "1:3", "::-2",
               "3", "-5", "2:0")
BASIC_INDEX_2D = (":, 0", "0, 1", ":, ::-1", "1:, -1", "..., 1:", "::2, ::-1")
CMP = (">", "<", ">=", "==")
AUG = {"+=": "biuf", "-=": "iuf", "*=": "biuf", "//=": "iuf", "%=": "iuf", "/=": "f",
       "|=": "biu", "&=": "biu", "<<=": "iu", ">>=": "iu", "**=": "iuf"}


class _TooSlow(Exception):
    """A statement NumPy runs for more than a second (a loop bound grew)."""


@contextlib.contextmanager
def _time_limit(seconds: float):
    def stop(signum, frame):
        raise _TooSlow

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Failed(Exception):
    """A branch or loop body NumPy rejects: the generator tries another statement."""


def _kind(value: object) -> str:
    return np.asarray(value).dtype.kind


def _fits(template: str, kinds: str, ok: str, narrow: bool) -> bool:
    return set(kinds) <= set(ok) and not (narrow and template in FLOAT_RESULT)


def _narrow(*values: object) -> bool:
    return all(np.asarray(v).dtype.itemsize == 1 for v in values if v is not None)


def _parenthesized(text: str) -> str:
    top = ast.parse(text, mode="eval").body
    compound = isinstance(top, (ast.BinOp, ast.Compare, ast.UnaryOp, ast.BoolOp))
    return f"({text})" if compound else text


class _Builder:
    """The statements so far and the NumPy values of the variables after them."""

    def __init__(self, draw: Callable, inp: Inputs, smooth: bool) -> None:
        self.draw, self.inputs, self.smooth = draw, inp, smooth
        self.params = list(PARAMS[:len(inp.args)])
        self.lines: list[str] = []
        self.visible = list(self.params)  # readable after the statements so far
        self.loop_vars: list[str] = []  # readable in the loop body being built
        self.env = self.run([])
        self.fresh = 0
        self.size = 0
        self.raises = False  # the last statement raises: the program ends there
        self.unary = SMOOTH_UNARY if smooth else UNARY
        self.binary = SMOOTH_BINARY if smooth else BINARY
        self.reductions = SMOOTH_REDUCTIONS if smooth else REDUCTIONS
        self.calls = SMOOTH_CALLS if smooth else CALLS

    def run(self, lines: list[str], **extra) -> dict:
        env = dict(zip(self.params, self.inputs.build()), **extra)
        with quiet(), _time_limit(1.0):
            exec("\n".join(lines), {"np": np}, env)
        return env

    # ---------------------------------------------------------------- choices
    def pick(self, options):
        return self.draw(st.sampled_from(list(options)))

    def coin(self, one_in: int = 2) -> bool:
        return self.draw(st.integers(0, one_in - 1)) == 0

    def value(self, text: str, env: dict) -> object:
        with quiet():
            try:
                return eval(text, {"np": np}, env)
            except Exception:
                return None

    def names(self, env: dict, arrays_only: bool = False) -> list[str]:
        return [n for n in self.visible + self.loop_vars
                if isinstance(env[n], (np.ndarray, np.generic))
                or (not arrays_only and isinstance(env[n], int))]

    # ------------------------------------------------------------ expressions
    def constant(self, kind: str) -> str:
        if self.smooth:
            return self.pick(("2.0", "0.5", "-1.5"))
        if kind == "b":
            return self.pick(("True", "False", "1", "0"))
        if kind == "c":
            return self.pick(COMPLEX_CONSTS)
        return self.pick(FLOAT_CONSTS if kind == "f" else INT_CONSTS)

    def operand(self, env: dict, depth: int) -> str:
        names = self.names(env)
        if depth <= 0 or not names or self.coin(3):
            return self.pick(names) if names else self.constant("f")
        return _parenthesized(self.expr(env, depth - 1))

    def expr(self, env: dict, depth: int = 1) -> str:
        form = self.pick(("binary", "unary", "reduce", "index", "where", "cast", "runtime",
                          "call") if not self.smooth else ("binary", "unary", "reduce",
                                                           "index", "where", "call"))
        x = self.operand(env, depth)
        xv = self.value(x, env)
        kind = _kind(xv) if xv is not None else "f"
        if form == "binary":
            if self.coin(3):
                y = self.constant(kind if self.coin(3) else self.pick("biuf"))
            else:
                y = self.operand(env, depth)
            yv = self.value(y, env)
            kinds = kind + (_kind(yv) if yv is not None else "f")
            narrow = _narrow(xv, yv)
            ops = [t for t, ok in self.binary.items() if _fits(t, kinds, ok, narrow)]
            return self.pick(ops or list(self.binary)).format(x, y)
        if form == "call":
            return self.call(env, depth, x, xv, kind)
        if form == "unary":
            ops = [t for t, ok in self.unary.items() if _fits(t, kind, ok, _narrow(xv))]
            return self.pick(ops or list(self.unary)).format(x)
        if form == "reduce" and isinstance(xv, np.ndarray):
            return self.reduction(x, xv)
        if form == "index" and isinstance(xv, np.ndarray):
            return f"{x}[{self.index(xv)}]"
        if form == "where":
            a = self.operand(env, 0)
            return f"np.where({x} {self.pick(CMP)} {self.constant(kind)}, {x}, {a})"
        if form == "cast":
            return f"{x}.astype({self.pick(CASTS)})" if isinstance(xv, np.ndarray) \
                else f"np.clip({x}, {self.constant(kind)}, {self.constant(kind)})"
        if form == "runtime" and isinstance(xv, np.ndarray) and xv.ndim:
            return f"{x}[{self.runtime_index(xv, env)}]"
        return x

    def call(self, env: dict, depth: int, x: str, xv: object, kind: str) -> str:
        """A NumPy function of ``x`` and maybe a second operand."""
        y = self.operand(env, depth)
        yv = self.value(y, env)
        both = kind + (_kind(yv) if yv is not None else "f")
        narrow = {True: _narrow(xv), False: _narrow(xv, yv)}
        fitting = [t for t, ok in self.calls.items()
                   if set(both if "{y}" in t else kind) <= set(ok)
                   and not (narrow["{y}" not in t] and t in CALLS_FLOAT16)]
        return self.pick(fitting or list(self.calls)).format(x=x, y=y)

    def reduction(self, x: str, xv: np.ndarray, scalar: bool = False) -> str:
        """A reduction of ``x``; with ``scalar``, one to a single value."""
        name = self.pick([r for r in self.reductions if not (scalar and r.startswith("cum"))])
        axes = [None] + list(range(-xv.ndim, xv.ndim)) + [xv.ndim]
        kwargs = []
        for key in self.reductions[name]:
            if key.startswith("axis") and not scalar and self.coin():
                tuples = [(), (0, 1)] if key == "axis" else []
                kwargs.append(f"axis={self.pick(axes + tuples)!r}")
            elif key == "keepdims" and not scalar and self.coin(3):
                kwargs.append("keepdims=True")
            elif key == "dtype" and not self.smooth and self.coin(4):
                kwargs.append(f"dtype={self.pick(CASTS[:6])}")
            elif key == "ddof" and self.coin(3):
                kwargs.append("ddof=1")
        if self.coin():
            return f"{x}.{name}({', '.join(kwargs)})"
        return f"np.{name}({', '.join([x] + kwargs)})"

    def index(self, xv: np.ndarray) -> str:
        if xv.ndim == 0:
            return self.pick(("()", "...", "None"))
        options = BASIC_INDEX + (BASIC_INDEX_2D if xv.ndim >= 2 else ())
        if self.smooth:
            options = tuple(o for o in options if o not in ("3", "-5"))
        return self.pick(options)

    def runtime_index(self, xv: np.ndarray, env: dict) -> str:
        ints = [n for n in self.names(env) if _kind(env[n]) in "iu" and np.ndim(env[n]) <= 1]
        if not ints:
            return self.index(xv)
        j = self.pick(ints)
        first = f"{j}[0]" if np.ndim(env[j]) == 1 and np.size(env[j]) else j
        forms = [j, first, f"{first}, ::-1", f"{first}:", f"{first}:{first} + 2"]
        if xv.ndim >= 2:
            forms.append(f":, {first}")
        return self.pick(forms)

    def condition(self, env: dict) -> str:
        arrays = self.names(env, arrays_only=True)
        x = self.pick(arrays)
        xv = env[x]
        kind = _kind(xv)
        scalar = self.reduction(x, xv, scalar=True) if np.ndim(xv) else x
        return f"{scalar} {self.pick(CMP)} {self.constant(kind if kind != 'b' else 'i')}"

    # ------------------------------------------------------------- statements
    def simple(self, env: dict) -> tuple[str, str | None]:
        """An assignment or in-place update, and the new name it defines."""
        targets = [n for n in self.names(env, arrays_only=True)
                   if isinstance(env[n], np.ndarray)]
        form = self.pick(("assign", "inplace", "setitem", "reassign"))
        rhs = self.expr(env, self.draw(st.integers(0, 2)))
        if form in ("inplace", "setitem") and targets:
            t = self.pick(targets)
            tv = env[t]
            if form == "setitem" and tv.ndim and self.coin(4):
                return f"{t}[{t} > 0] = {self.constant(_kind(tv))}", None
            sub = ""
            if form == "setitem" or self.coin():
                index = self.runtime_index(tv, env) if self.coin(3) else self.index(tv)
                index = "..." if index == "None" else index  # README: refused in stores
                sub = f"[{index}]"
            if form == "setitem":
                return f"{t}{sub} = {rhs}", None
            ops = [o for o, ok in AUG.items() if _kind(tv) in ok] or ["+="]
            if self.smooth:
                ops = ["+=", "-=", "*="]
            return f"{t}{sub} {self.pick(ops)} {rhs}", None
        # rebinding keeps the shape: jitaic needs one shape per variable at a join
        shape = np.shape(self.value(rhs, env))
        same = [n for n in self.visible if n not in self.params and np.shape(env[n]) == shape]
        if form == "reassign" and same:
            return f"{self.pick(same)} = {rhs}", None
        name = f"v{self.fresh}"
        self.fresh += 1
        return f"{name} = {rhs}", name

    def compound(self) -> tuple[str, list[str]]:
        """An if/else, for or while statement, and the names it defines."""
        form = self.pick(("if", "for", "while"))
        if form == "if":
            cond = self.condition(self.env)
            then, name = self.simple(self.env)
            if name is None and not self.coin():
                self.check_body([then])
                return f"if {cond}:\n    {then}", []
            other = self.simple(self.env)[0]
            if name is not None:  # defined on both paths, mostly with one shape
                rhs, alternative = then.split(" = ", 1)[1], self.expr(self.env, 1)
                same = np.shape(self.value(rhs, self.env)) == np.shape(
                    self.value(alternative, self.env))
                other = f"{name} = {alternative if same or self.coin(4) else rhs}"
            self.check_body([then, other])
            return f"if {cond}:\n    {then}\nelse:\n    {other}", [name] if name else []
        counter = "i" if form == "for" else "k"
        self.loop_vars = [counter]
        loop_env = dict(self.env, **{counter: 0})
        body = [self.simple(loop_env)[0]
                for _ in range(self.draw(st.integers(1, 2)))]
        self.loop_vars = []
        self.check_body(body, **{counter: 0})
        ints = [f"{n}[0]" for n in self.names(self.env, arrays_only=True)
                if _kind(self.env[n]) in "iu" and np.ndim(self.env[n]) == 1
                and np.size(self.env[n]) and -2 <= self.env[n][0] <= 8]
        body_text = "".join(f"\n    {b}" for b in body)
        if form == "for":
            shapes = [f"{n}.shape[0]" for n in self.names(self.env, arrays_only=True)
                      if np.ndim(self.env[n])]
            bound = self.pick(["3", "1", "0"] + shapes + ints)
            return f"for i in range({bound}):{body_text}", []
        bound = self.pick(["3", "1", "0", "5"] + ints)
        cond = f" and {self.condition(self.env)}" if self.coin() else ""
        return f"k = 0\nwhile k < {bound}{cond}:{body_text}\n    k += 1", []

    def check_body(self, body: list[str], **loop_var) -> None:
        """Mostly, a branch or loop body must run on the values before it: NumPy
        runs only the branches taken, jitaic compiles all (that an untaken
        branch must not raise at compile time is kept in view by the rest)."""
        if self.coin(16):
            return
        for statement in body:
            try:
                self.run(self.lines + [statement], **loop_var)
            except Exception as exc:
                raise _Failed from exc

    def statement(self) -> None:
        for _ in range(4):
            compound = self.coin(6 if self.smooth else 4)
            try:
                text, new = self.compound() if compound else self.simple(self.env)
            except _Failed:
                continue
            new = new if isinstance(new, list) else [new] if new else []
            lines = self.lines + [text]
            try:
                self.env = self.run(lines)
            except Exception as exc:
                if isinstance(exc, (NameError, SyntaxError)):
                    raise  # a bug in this generator
                if not isinstance(exc, _TooSlow) and self.coin(4):
                    self.lines, self.raises = lines, True
                    return
                self.env = self.run(self.lines)
                continue
            self.lines = lines
            self.visible += new
            self.size += text.count("\n") + 1
            return

    def returns(self) -> str:
        values = [n for n in self.visible
                  if isinstance(self.env.get(n), (np.ndarray, np.generic))] or self.params
        first = values[-1] if self.coin(4) or len(values) == 1 else self.pick(values)
        if self.coin(3) and len(values) > 1:
            return f"return {first}, {self.pick(values)}"
        return f"return {first}"


@st.composite
def cases(draw, smooth: bool | None = None) -> Case:
    """A random program with its arguments."""
    if smooth is None:
        smooth = draw(st.integers(0, 5)) == 0
    inp = draw(inputs(smooth))
    b = _Builder(draw, inp, smooth)
    for _ in range(draw(st.integers(1, 6))):
        if b.raises or b.size >= MAX_STATEMENTS:
            break
        b.statement()
    body = "\n".join(b.lines + [b.returns()])
    source = f"def f({', '.join(b.params)}):\n" + "".join(
        f"    {line}\n" for line in body.split("\n"))
    return Case(source, inp.bases, inp.args, smooth)
