"""NumPy on Tracers, laid out as NumPy documents itself.

Each module holds the handlers of one part of NumPy's API and registers them
where they are defined (``registry.implements``); ``protocol`` installs them on
``Tracer``. Handlers lower to the ops of ``jitaic.ir.ops``; composite NumPy
functions (mean, var, clip, outer, stack, ...) are written in terms of those
ops, so later concerns (lowering, autodiff) only ever see primitive ops.

    common          operands as Tracers, axes, run-time checks, one-op wrappers
    ufuncs          ufunc calls, Python-int rules (NEP 50), operators, composite ufuncs
    shapes          reshape, transpose, expand/squeeze, broadcasting, joining, append
    indexing        basic and advanced indexing, assignment, take, diagonal
    index_routines  put, place, extract, compress, choose, copyto, fill_diagonal, unravel ...
    reductions      sum ... all, mean/var/std, arg-reductions, scans, the nan* reductions
    rearranging     flips, rot90, roll, repeat, tile, splits
    sorting         sort, argsort, partition, searchsorted; nonzero, argwhere, where(cond)
    sets            unique, isin, union/intersection/differences, trim_zeros
    linalg          products, norms, solves, einsum, cross, trace
    decompositions  eigh, eig, svd, qr and pinv, lstsq, matrix_rank over them
    creation        *_like, array, linspace, meshgrid, building matrices
    fft             np.fft's transforms and shifts
    functional      apply_along_axis as one compiled loop
    mathematical    clip, round, diff, trapezoid, convolve, interp, isclose ...
    polynomials     polyval, polyadd ... polyfit on coefficient arrays
    statistics      median, quantile and their nan* forms, average, cov, histogram, digitize
    array_api       NumPy 2's array-API spellings (vecdot, matvec, linalg.vector_norm, ...)
    callbacks       NumPy called back for what has no lowering (np.random's global stream)
    generators      np.random.Generator's draws, np.random.default_rng
    protocol        __array_ufunc__, __array_function__, methods on Tracer

The names below are the API the rest of jitaic (autodiff, the AST frontend,
the numpy proxy) builds graphs with.
"""

from jitaic.tracer.numpy import (  # noqa: F401  (imported to register their handlers)
    array_api,
    creation,
    fft,
    functional,
    index_routines,
    linalg,
    mathematical,
    polynomials,
    rearranging,
    sets,
    statistics,
)
from jitaic.tracer.numpy.common import (
    as_array,
    as_tracer,
    astype,
    broadcast_to,
    copy_array,
    full_value,
    where,
)
from jitaic.tracer.numpy.creation import (
    array_from_nested,
    asarray_chkfinite,
    common_type,
    linspace,
    logspace,
    not_a_scalar,
)
from jitaic.tracer.numpy.indexing import add_at
from jitaic.tracer.numpy.protocol import install
from jitaic.tracer.numpy.rearranging import flip
from jitaic.tracer.numpy.reductions import cummax, cumprod, cumsum, sum_
from jitaic.tracer.numpy.shapes import concatenate, expand_dims, reshape, swapaxes, transpose
from jitaic.tracer.numpy.ufuncs import apply_ufunc, matmul

install()

__all__ = [
    "add_at", "apply_ufunc", "array_from_nested", "as_array", "as_tracer", "asarray_chkfinite",
    "astype", "common_type", "not_a_scalar",
    "broadcast_to", "concatenate", "copy_array", "cummax", "cumprod", "cumsum", "expand_dims",
    "flip", "full_value", "linspace", "logspace", "matmul", "reshape", "sum_", "swapaxes",
    "transpose", "where",
]
