"""The oracle: one program run by NumPy and by ``jitaic.jit`` in each mode, compared.

For each mode the verdict is "ok", "unsupported" (``jitaic.UnsupportedError``:
a clean refusal, counted apart) or "mismatch" with a *kind*, the fingerprint
of the difference: "result-values:float64", "argument-dtype:int8->int64",
"missed-error:IndexError: <gist of NumPy's message>", "spurious-error:TypeError:
<gist of jitaic's>" (NumPy returns), "wrong-error:IndexError->ShapeError:
<gist of jitaic's>", suffixed "@2" when only the second (cached) call differs.
Results and arguments after the call are compared with ``helpers.assert_same``
(structure, kind, dtype, shape), then value by value with NumPy's per-dtype
tolerances, NaN equal to NaN and the sign of a zero significant. A difference
that rounding alone could make (see conditioning.py) is not a mismatch.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from helpers import assert_same, default_tols

import jitaic
from jitaic.errors import PathShapeError

from .conditioning import perturbed


@contextlib.contextmanager
def quiet():
    """NumPy's warnings (overflow, invalid, casts) are not errors."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@dataclass
class Run:
    result: object = None
    args: tuple = ()
    error: BaseException | None = None


@dataclass(frozen=True)
class Verdict:
    mode: str
    status: str  # "ok", "unsupported" or "mismatch"
    kind: str = ""
    detail: str = ""


def run(fn: Callable, make_args: Callable) -> Run:
    args = make_args()
    try:
        with quiet():
            return Run(fn(*args), args)
    except Exception as exc:  # the program's own error is an outcome
        return Run(args=args, error=exc)


def refused(exc: BaseException | None) -> bool:
    """jitaic declining to compile: an UnsupportedError, or the ShapeError for a
    variable whose number of dimensions differs between paths (a documented
    limit, docs/control-flow.md; the error names the variable)."""
    return isinstance(exc, (jitaic.UnsupportedError, PathShapeError))


def builtin_types(exc: BaseException) -> tuple[type, ...]:
    """The most specific built-in exception classes ``exc`` is an instance of
    (AxisError: ValueError and IndexError; UFuncTypeError: TypeError)."""
    found = [c for c in type(exc).__mro__ if c.__module__ == "builtins"
             and c not in (Exception, BaseException, object)]
    return tuple(c for c in found if not any(c is not d and issubclass(d, c) for d in found))


def _name(exc: BaseException) -> str:
    return "|".join(c.__name__ for c in builtin_types(exc)) or type(exc).__name__


def gist(exc: BaseException) -> str:
    """An error message less what varies between programs (location, numbers,
    shapes, quoted names and dtypes, variable names): one gist per root cause, mostly."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    text = re.sub(r" at \S+:\d+| \((?:in|computed at) [^)]*\)", "", text)
    text = re.sub(r"'[^']*'", "'*'", text)
    text = re.sub(r"\((?:N, )*N?,?\)", "(shape)", re.sub(r"-?\d+", "N", text))
    return re.sub(r"\bv\d+\b", "vN", text)[:90]


def leaves(x: object) -> list:
    if isinstance(x, dict):
        return [v for k in sorted(x) for v in leaves(x[k])]
    if isinstance(x, (tuple, list)):
        return [v for item in x for v in leaves(item)]
    return [x]


def differs(got: object, want: object) -> np.ndarray:
    """Where ``got`` differs from ``want`` (same dtype and shape) beyond tolerance."""
    g, w = np.asarray(got), np.asarray(want)
    if w.dtype.kind == "c" and g.dtype.kind == "c":  # each part as a float
        return differs(g.real, w.real) | differs(g.imag, w.imag)
    if w.dtype.kind != "f":
        return np.asarray(g != w)
    rtol, atol = default_tols(w.dtype)
    close = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    zeros = (g == 0) & (w == 0)
    return ~close | (zeros & (np.signbit(g) != np.signbit(w)))


def _structure(got: Run, want: Run) -> tuple[str, str] | None:
    for where, g, w in (("result", got.result, want.result),
                        ("argument", got.args, want.args)):
        try:
            assert_same(g, w, values=False, path=where)
        except AssertionError as exc:
            msg = str(exc).splitlines()[0]
            dtypes = re.search(r"dtype (\S+) != NumPy's (\S+)", msg)
            what = (f"dtype:{dtypes[2]}->{dtypes[1]}" if dtypes else "kind"
                    if "NumPy returns" in msg else "shape" if " shape " in msg else "structure")
            return f"{where}-{what}", msg
    return None


def _values(got: Run, want: Run, unstable: Callable[[], list[Run] | None]):
    for where, g, w in (("result", got.result, want.result),
                        ("argument", got.args, want.args)):
        for k, (gl, wl) in enumerate(zip(leaves(g), leaves(w))):
            bad = differs(gl, wl)
            if not bad.any():
                continue
            others = unstable()
            if others is None:  # rounding changes NumPy's own control flow or errors
                return None
            for other in others:
                ol = leaves(other.result if where == "result" else other.args)[k]
                bad &= ~differs(ol, wl)
            if bad.any():
                wl_a, gl_a = np.asarray(wl), np.asarray(gl)
                at = np.argwhere(bad)[0] if wl_a.ndim else ()
                return (f"{where}-values:{wl_a.dtype}",
                        f"{where} leaf {k} at {tuple(map(int, at))}: jitaic "
                        f"{gl_a[tuple(at)]!r}, NumPy {wl_a[tuple(at)]!r}")
    return None


def compare(got: Run, want: Run, unstable: Callable[[], list[Run] | None]):
    """The mismatch (kind, detail) between jitaic's run and NumPy's, or None."""
    if (want.error is None) != (got.error is None) and unstable() is None:
        return None
    if want.error is not None and got.error is None:
        return (f"missed-error:{_name(want.error)}: {gist(want.error)}",
                f"NumPy raises {want.error!r}")
    if got.error is not None:
        jitaic_error = f"{type(got.error).__name__}: {gist(got.error)}"
        if want.error is None:
            return f"spurious-error:{jitaic_error}", f"jitaic raises {got.error!r}"
        if not isinstance(got.error, builtin_types(want.error)):
            return (f"wrong-error:{_name(want.error)}->{jitaic_error}",
                    f"NumPy raises {want.error!r}, jitaic {got.error!r}")
        return None
    return _structure(got, want) or _values(got, want, unstable)


def check(fn: Callable, make_args: Callable, modes: tuple[str, ...]) -> list[Verdict]:
    """One verdict per mode; the jitted function is called twice (compile, cached)."""
    want = run(fn, make_args)
    cache: list = []

    def unstable() -> list[Run] | None:
        """NumPy's runs with inexact results nudged, or None when that changes
        whether it raises or the structure of its results."""
        if not cache:
            runs = [run(p, make_args) for p in perturbed(fn)]
            same = all((r.error is None) == (want.error is None) and (
                r.error is not None or _structure(r, want) is None) for r in runs)
            cache.append(runs if same else None)
        return cache[0]

    return [_verdict(jitaic.jit(fn, mode=mode), mode, make_args, want, unstable)
            for mode in modes]


def _verdict(jf: Callable, mode: str, make_args: Callable, want: Run, unstable) -> Verdict:
    for suffix in ("", "@2"):
        got = run(jf, make_args)
        if refused(got.error):
            return Verdict(mode, "unsupported", type(got.error).__name__,
                           str(got.error).splitlines()[0])
        found = compare(got, want, unstable)
        if found:
            return Verdict(mode, "mismatch", found[0] + suffix, found[1])
    return Verdict(mode, "ok")
