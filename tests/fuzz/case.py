"""A fuzz case as one self-contained Python module, and loading such modules.

A case is the source of a program ``f`` and the ``make_args()`` that builds
its arguments from array literals. Its module text is both what the fuzzer
imports (from a private temporary file, so that ``inspect.getsource`` works
for the AST frontend) and the reproducer kept in ``corpus/``:

    FINGERPRINT     the mismatch it showed ("" for a case that passed)
    KNOWN_FAILURE   a one-line reason while its root cause is unfixed, else None
    MODES           the jit modes it is checked in
    GRADIENTS       whether jitaic.grad is checked too (smooth float64 and complex128 programs)
    f, make_args    the program, and fresh arguments for each run
"""

from __future__ import annotations

import atexit
import importlib.util
import itertools
import os
import shutil
import tempfile
import textwrap
from dataclasses import dataclass
from types import ModuleType

import numpy as np

MODES = ("trace", "ast", "auto")

_TEMPLATE = '''"""{title}"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = {fingerprint!r}
KNOWN_FAILURE = {known!r}
MODES = {modes!r}
GRADIENTS = {smooth!r}


{source}

def make_args():
{setup}'''


@dataclass(frozen=True)
class Case:
    source: str  # "def f(...):" and its body, ending in a newline
    bases: tuple[tuple[str, np.ndarray], ...]
    args: tuple[str, ...]
    smooth: bool = False  # float64 or complex128, differentiable ops: check gradients too

    def module_text(self, title: str = "A fuzz case.", fingerprint: str = "",
                    known: str | None = None) -> str:
        lines = [f"{name} = {_literal(arr)}" for name, arr in self.bases]
        lines.append(f"return ({', '.join(self.args)},)")
        return _TEMPLATE.format(title=title, fingerprint=fingerprint, known=known,
                                modes=MODES, smooth=self.smooth, source=self.source,
                                setup=textwrap.indent("\n".join(lines), "    ") + "\n")


def _item(value: object) -> str:
    """A value as Python source ((nan+infj) is not: complex(nan, inf) is)."""
    if isinstance(value, complex):
        return f"complex({value.real!r}, {value.imag!r})"
    return repr(value)


def _literal(x: np.ndarray) -> str:
    items = textwrap.fill(", ".join(map(_item, x.ravel().tolist())), 80,
                          initial_indent=" " * 8, subsequent_indent=" " * 8)
    return f"np.array([\n{items}\n    ], dtype={str(x.dtype)!r}).reshape({x.shape!r})"


def write_private(path: str, text: str) -> None:
    """Write a new file only the user can read (programs hold no secrets, but
    the directory may be shared)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)


_names = itertools.count()
_tempdir: str | None = None


def materialize(text: str, directory: str | None = None) -> ModuleType:
    """Import module text from a new private file, in ``directory`` or in a
    private temporary directory removed at exit."""
    global _tempdir
    if directory is None:
        if _tempdir is None:
            _tempdir = tempfile.mkdtemp(prefix="jitaic-fuzz-")  # mode 0700
            atexit.register(shutil.rmtree, _tempdir, True)
        directory = _tempdir
    path = os.path.join(directory, f"case_{os.getpid()}_{next(_names)}.py")
    write_private(path, text)
    return load(path)


def load(path: str) -> ModuleType:
    name = "jitaic_fuzz_" + os.path.basename(path)[:-3].replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
