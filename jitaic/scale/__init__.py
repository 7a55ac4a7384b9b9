"""Running jitted functions beyond one process: dask arrays (``dask_arrays``),
decided from the IR (``blockwise``)."""

import sys


def has_dask_arrays(args: tuple, kwargs: dict) -> bool:
    """Whether an argument is a ``dask.array.Array``. ``jit`` asks on every
    call, so nothing is imported to answer: such an argument means
    dask.array is loaded, and jitaic's dask support loads only then."""
    array = getattr(sys.modules.get("dask.array"), "Array", None)
    return array is not None and any(isinstance(a, array)
                                     for a in (*args, *kwargs.values()))
