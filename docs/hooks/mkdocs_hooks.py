"""MkDocs hooks: pages and pictures generated from the code at build time.

- ``numpy.md``: the supported NumPy functions (``supported_numpy.py``);
- ``pictures/*.svg``: graphs of the example functions of ``pictures.py``,
  drawn by ``f.lower(...).graph()`` (Graphviz's Python binding renders them).
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).parent))

import pictures  # noqa: E402
import supported_numpy  # noqa: E402


def on_files(files, config):
    files.append(File.generated(config, "numpy.md", content=supported_numpy.page()))
    for name, svg in pictures.render_all().items():
        files.append(File.generated(config, f"pictures/{name}.svg", content=svg))
    return files
