"""Running jitted functions beyond one process: dask arrays (``dask_arrays``),
decided from the IR (``blockwise``)."""
