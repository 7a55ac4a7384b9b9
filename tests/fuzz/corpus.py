"""The regression corpus: reproducer files in ``corpus/``, and which bugs they stand for.

Every failure the fuzzer finds is kept as a module (case.py's format). While
its root cause is unfixed, ``KNOWN_FAILURE`` holds a one-line reason: the
replay test expects it to fail (strictly), and a random program showing the
same kind of mismatch (for an error: with the same gist of its message; for
values and dtypes: with at least the same operations, its *features*) is
taken for the same bug rather than a new one.
"""

from __future__ import annotations

import ast
import glob
import hashlib
import os
import re
import textwrap
from dataclasses import dataclass, field

from .case import load, write_private

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def paths(directory: str = CORPUS) -> list[str]:
    return sorted(glob.glob(os.path.join(directory, "*.py")))


def features(text: str) -> frozenset[str]:
    """The operations the program ``f`` uses: attributes (NumPy functions,
    methods, dtypes), keywords, operators, statements, and whether it indexes
    with constants or with run-time values, for loading or storing."""
    tree = next(node for node in ast.parse(text).body
                if isinstance(node, ast.FunctionDef) and node.name == "f")
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.keyword):
            found.add(f"{node.arg}=")
        elif isinstance(node, (ast.operator, ast.cmpop, ast.unaryop, ast.If, ast.For,
                               ast.While, ast.AugAssign)):
            found.add(type(node).__name__)
        elif isinstance(node, ast.Subscript):
            runtime = any(isinstance(n, ast.Name) for n in ast.walk(node.slice))
            found.add(f"{type(node.ctx).__name__.lower()}-"
                      f"{'runtime' if runtime else 'constant'}-index")
    return frozenset(found)


@dataclass
class Known:
    """Known failures: (mismatch kind, features of its smallest program)."""

    bugs: list[tuple[str, frozenset[str]]] = field(default_factory=list)

    @classmethod
    def from_corpus(cls, directory: str = CORPUS) -> Known:
        known = cls()
        for path in paths(directory):
            module = load(path)
            if module.KNOWN_FAILURE:
                with open(path) as src:
                    known.add(module.FINGERPRINT, src.read())
        return known

    def add(self, kind: str, text: str) -> None:
        self.bugs.append((kind, features(text)))

    def matches(self, kind: str, text: str) -> bool:
        """An error's kind holds the gist of its message, which names the root
        cause; a difference in values or dtypes also needs the operations."""
        have = features(text)
        return any(k == kind and (": " in kind or f <= have) for k, f in self.bugs)


def save(text: str, mode: str, kind: str, detail: str, directory: str = CORPUS) -> str:
    """Write case module ``text`` as a reproducer marked as a known failure."""
    os.makedirs(directory, exist_ok=True)
    slug = re.sub(r"[^a-z0-9]+", "_", kind.split(": ")[0].lower()).strip("_")
    path = os.path.join(directory, f"{slug}_{hashlib.sha1(text.encode()).hexdigest()[:10]}.py")
    if os.path.exists(path):
        return path
    detail = detail.replace("\\", "/").replace('"""', "'''")[:400]
    title = textwrap.fill(f"Fuzzer reproducer, mode {mode}: {kind}. {detail}", 88)
    reason = f"{kind}: {detail[:120]}"
    text = (text.replace('"""A fuzz case."""', f'"""{title}"""', 1)
            .replace("FINGERPRINT = ''", f"FINGERPRINT = {kind!r}", 1)
            .replace("KNOWN_FAILURE = None", f"KNOWN_FAILURE = {reason!r}", 1))
    write_private(path, text)
    return path
