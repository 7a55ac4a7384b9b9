"""numba cfuncs that compiled code calls by name, one per dtype.

A helper linked into a kernel is optimised and generated again with every
kernel that calls it; a large one (BLAS products with their cases and
copies, the pairwise sum's tree) costs 0.2-0.3 s of each such first call.
Compiled once as a cfunc instead (on first use, cached on disk) and
registered with LLVM under ``<prefix>_<dtype>``, it is called as an external
function. Lowering registers the dtype's function before the kernel is
compiled or loaded from a cache, so the name resolves; the generated source
names no address and is the same in every process.
"""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.binding as llvm
import numba
import numpy as np


class ExternalFunctions:
    """The cfuncs of one helper: ``implementations`` maps a dtype to its
    Python function, ``signature`` a dtype to the cfunc's numba signature."""

    def __init__(self, prefix: str, implementations: dict[np.dtype, Callable],
                 signature: Callable[[np.dtype], object]) -> None:
        self.prefix = prefix
        self.implementations = implementations
        self._signature = signature
        self._compiled: dict[np.dtype, object] = {}  # the cfuncs, kept alive

    def symbol(self, dtype) -> str:
        return f"{self.prefix}_{np.dtype(dtype).name}"

    def register(self, dtype) -> None:
        """Compile (or load from numba's cache) the function for ``dtype``,
        once per process, and register it with LLVM by name."""
        dtype = np.dtype(dtype)
        if dtype in self.implementations and dtype not in self._compiled:
            compiled = numba.cfunc(self._signature(dtype), cache=True)(
                self.implementations[dtype])
            compiled = self._compiled.setdefault(dtype, compiled)  # a racing thread's stays
            llvm.add_symbol(self.symbol(dtype), compiled.address)
