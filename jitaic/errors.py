"""User-facing exceptions and the formatting of a user's source location.

Every error raised while tracing or compiling names the construct and, when
known, the ``file:line`` in the user's code where it happened.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import traceback
import types
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_NUMPY_DIR = os.path.dirname(os.path.abspath(__import__("numpy").__file__))


@dataclass(frozen=True)
class SourceLoc:
    """Where a node came from in the user's program."""

    filename: str
    lineno: int
    function: str

    def __str__(self) -> str:
        return f"{os.path.basename(self.filename)}:{self.lineno}"


def _is_internal(filename: str) -> bool:
    return filename.startswith((_PACKAGE_DIR, _NUMPY_DIR, "<frozen"))


def called_by_user(depth: int = 1) -> bool:
    """Whether the caller's caller (``depth`` frames further up) is the
    user's code, not jitaic's or NumPy's."""
    return not _is_internal(sys._getframe(depth + 1).f_code.co_filename)


_stand_ins = threading.local()


@contextlib.contextmanager
def located_at(loc: SourceLoc | None) -> Iterator[None]:
    """Within the block, ``user_location()`` is ``loc``: the nodes that
    differentiate a forward node carry that node's line, not the line of the
    ``grad`` call. ``None`` keeps the stack's own answer."""
    stack = _stand_ins.__dict__.setdefault("stack", [])
    stack.append(loc)
    try:
        yield
    finally:
        stack.pop()


def user_location(skip: int = 1) -> SourceLoc | None:
    """The innermost stack frame that belongs to the user, not jitaic or NumPy
    (or the location ``located_at`` stands in for it)."""
    stack = getattr(_stand_ins, "stack", None)
    if stack and stack[-1] is not None:
        return stack[-1]
    frame = sys._getframe(skip)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not _is_internal(filename):
            return SourceLoc(filename, frame.f_lineno, _user_function(frame))
        frame = frame.f_back
    return None


def user_frames() -> Iterator[types.FrameType]:
    """The stack frames of the user's code (not jitaic's or NumPy's), innermost first."""
    frame = sys._getframe(1)
    while frame is not None:
        if not _is_internal(frame.f_code.co_filename):
            yield frame
        frame = frame.f_back


def user_stacklevel() -> int:
    """The stacklevel that makes a ``warnings.warn`` call in the caller of
    this function name the innermost frame of the user's (not jitaic's or
    NumPy's)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def _user_function(frame) -> str:
    """The name of the user's function a frame runs in: the AST frontend turns
    loop and branch bodies into helpers (``__jitaic_body_3``), called from the
    rewritten function itself further up the stack."""
    while frame is not None:
        name = frame.f_code.co_name
        if not name.startswith("__jitaic") and not _is_internal(frame.f_code.co_filename):
            return name
        frame = frame.f_back
    return "?"


def recursion_error(exc: RecursionError) -> Exception:
    """An UnsupportedError for recursion that tracing cannot end (the base case
    depends on a traced value, so both sides of the ``if`` are traced, again and
    again), at the user's line that recurses most."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not _is_internal(f.filename)]
    if not frames:
        return exc
    # the line that calls the function recursing most (a branch or loop body
    # the AST frontend made a helper of calls it from a frame of its own)
    names = Counter(f.name for f in frames if not f.name.startswith("__jitaic"))
    recursing = names.most_common(1)[0][0] if names else None
    calls = Counter((f.filename, f.lineno) for f, callee in zip(frames, frames[1:])
                    if callee.name == recursing) or \
        Counter((f.filename, f.lineno) for f in frames)
    filename, lineno = calls.most_common(1)[0][0]
    loc = SourceLoc(filename, lineno, recursing or "?")
    return UnsupportedError(f"recursion that does not end while tracing is not supported"
                            f"{at(loc)}: the function calls itself until a traced value "
                            f"decides (jitaic compiles both sides of that if); write the "
                            f"recursion as a while loop")


def at(loc: SourceLoc | None) -> str:
    """' at file.py:12 (in f)' or '' when the location is unknown."""
    return f" at {loc} (in {loc.function})" if loc is not None else ""


class JitaicError(Exception):
    """Base class of jitaic's own errors."""


class UnsupportedError(JitaicError):
    """A Python or NumPy construct, or an argument type, jitaic cannot compile."""


class ConcretizationError(UnsupportedError):
    """Python control flow asked for the value of a traced array."""


class NotLowered(UnsupportedError):
    """A NumPy function's handler meets arguments it has no lowering for
    (np.pad's statistic modes): NumPy computes the call instead, called back
    from the compiled code, where callbacks are on."""


class TracedSequenceError(UnsupportedError):
    """NumPy met a list or tuple holding traced values where it makes an array
    (the proxy's NumPy functions convert it and call again)."""


class StaticArgumentNeeded(ConcretizationError):
    """Python asked for the value of a traced Python-float argument
    (``range(int(n))``): the call is specialised on that argument's value."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


class ShapeError(JitaicError, ValueError):
    """Shapes that NumPy would reject (broadcasting, matmul, reshape)."""


class PathShapeError(ShapeError):
    """A variable whose shape differs between two paths (the branches of an
    if, a loop's iterations): jitaic's limit, found while tracing, never an
    error NumPy would raise when the code runs."""


class CompileError(JitaicError):
    """The backend failed on generated code: a bug in jitaic, never the user's."""


class Interrupted(KeyboardInterrupt, Exception):
    """Ctrl-C stopped a jitted loop. A KeyboardInterrupt, as Python's; also an
    Exception only because compiled code can raise nothing else."""


class RecompileWarning(UserWarning):
    """A jitted function keeps compiling for new argument shapes or types."""
