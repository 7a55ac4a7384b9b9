"""Lowering rules, one registry keyed by op, split by op family.

    scalar       the expression of one element of each elementwise op
    loops        the registry (LOWERINGS), run-time extents, loop nests
    extents      which run-time lengths are provably equal
    values       constants, filled arrays, tapes, run-time checks
    reductions   reductions over monoids, arg-reductions, scans
    sorting      argsort, select, searchsorted
    spectral     Fourier transforms
    linalg       matrix products and LAPACK
    callbacks    NumPy called back for what has no lowering
    random       draws from NumPy Generators
    indexing     views, slices, stores, gather/scatter, masks, concatenation

Importing the package imports every family, so every op is registered.
"""

from jitaic.lower.kernels import (  # noqa: F401
    callbacks,
    indexing,
    linalg,
    random,
    reductions,
    sorting,
    spectral,
    values,
)
from jitaic.lower.kernels.indexing import region_view
from jitaic.lower.kernels.loops import (
    LOWERINGS,
    LoopNest,
    broadcast_failure,
    check_extents,
    check_index,
    dims,
    element_cost,
    load,
    lowering,
    render,
)
from jitaic.lower.kernels.reductions import MONOIDS, emit_reduction
from jitaic.lower.kernels.scalar import (
    SCALAR_RULES,
    magnitude_comparison,
    magnitude_expression,
    scalar_expression,
)

__all__ = [
    "LOWERINGS", "MONOIDS", "SCALAR_RULES", "LoopNest", "broadcast_failure", "check_extents",
    "check_index", "dims", "element_cost", "emit_reduction", "load", "lowering",
    "magnitude_comparison", "magnitude_expression", "region_view", "render", "scalar_expression",
]
