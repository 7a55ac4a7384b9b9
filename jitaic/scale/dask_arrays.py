"""Jitted functions called on dask arrays: compiled kernels block by block.

A call with a ``dask.array.Array`` argument traces the function at two block
lengths and lets ``blockwise.analyse`` decide how it may run:

- blockwise along the chunked axes: one ``dask.array.blockwise`` task per
  block, each calling the jitted function on NumPy blocks (compiled once per
  block shape, loaded from the shared disk cache by other workers);
- a full reduction (sum, mean, max, min, any, all) of such an expression: each
  block gives a partial and dask's reduction tree combines them;
- ``jit(grad(loss))`` with such a sum or mean as the loss: the sum of per-block
  gradients (weighted by block size for a mean), with respect to NumPy
  arguments (the weights of a model over a batch held as a dask array).

Anything else raises ``UnsupportedError`` naming the axis that must be one
chunk. dask is an optional dependency: nothing here imports it unless the
caller already has (a dask array argument means it is loaded).
"""

from __future__ import annotations

import inspect
import math
import operator
import string
from dataclasses import dataclass

import numpy as np

from jitaic.errors import UnsupportedError
from jitaic.ir.types import TensorType
from jitaic.scale.blockwise import Lengths, NotBlockwise, Plan, analyse
from jitaic.tracer.trace import Traced, flatten, unflatten


@dataclass(frozen=True)
class Chunking:
    """The dask arguments' axes aligned as NumPy broadcasts them: letter per
    axis, the chunked letters (labels, in order) and their chunks."""

    letters: dict[int, str]          # argument position -> index string
    chunked: tuple[str, ...]          # the labels' letters
    chunks: dict[str, tuple[int, ...]]
    names: tuple[str, ...]            # "axis 0 of x" per label
    rechunks: tuple[str, ...]         # "x.rechunk({0: -1})" per label


def call(jitted, args: tuple, kwargs: dict):
    """``jitted(*args, **kwargs)`` with dask arrays among ``args``."""
    import dask.array as da

    if any(isinstance(v, da.Array) for v in kwargs.values()):
        raise UnsupportedError("pass dask arrays positionally to a jitted function")
    args, chunking = _unified(jitted, args)
    recipe = getattr(jitted.__wrapped__, "_recipe", None)
    if recipe is not None:
        return _gradient(jitted, recipe, args, kwargs, chunking)
    plan, traced = _plan(jitted, args, kwargs, chunking)
    results = [v.type for v in traced.graph.results]
    if plan.reduction is not None:
        return _reduced(jitted, plan, results[0], args, kwargs, chunking)
    if len(results) == 1:  # (perhaps in a tuple of one: the result tree says)
        out = [_mapped(jitted, plan.labels[0], results[0], args, kwargs, chunking)]
    else:
        out = _mapped_several(jitted, plan, results, args, kwargs, chunking)
    return unflatten(traced.out_tree, out)


def _unified(jitted, args: tuple) -> tuple[tuple, Chunking]:
    """The dask arguments with common chunks along broadcast-aligned axes."""
    import dask.array as da

    positions = [i for i, a in enumerate(args) if isinstance(a, da.Array)]
    ndim = max(args[i].ndim for i in positions)
    letters = {i: string.ascii_lowercase[ndim - args[i].ndim:ndim] for i in positions}
    pairs = [x for i in positions for x in (args[i], letters[i])]
    chunks, arrays = da.core.unify_chunks(*pairs)
    args = list(args)
    for i, a in zip(positions, arrays, strict=True):
        args[i] = a
    chunked = tuple(sorted(letter for letter, c in chunks.items() if len(c) > 1))
    params = [*inspect.signature(jitted).parameters, *(f"argument {i}" for i in range(len(args)))]
    where = [next((params[i], letters[i].index(letter)) for i in positions
                  if letter in letters[i]) for letter in chunked]
    return tuple(args), Chunking(letters, chunked, chunks,
                                 tuple(f"axis {axis} of {name}" for name, axis in where),
                                 tuple(f"{name}.rechunk({{{axis}: -1}})" for name, axis in where))


def _plan(jitted, args: tuple, kwargs: dict, chunking: Chunking) -> tuple[Plan, Traced]:
    """Trace at two block lengths and analyse; also the first trace."""
    first = tuple(max(chunking.chunks[c][0], 2) for c in chunking.chunked)
    second = tuple(n + 1 + k for k, n in enumerate(first))
    lengths = Lengths(first, second, chunking.names, chunking.rechunks)
    traces = []
    for traced in (first, second):
        blocks = _example_blocks(args, chunking, dict(zip(chunking.chunked, traced,
                                                           strict=True)))
        try:
            traces.append(jitted.trace_only(*blocks, **kwargs))
        except (ValueError, TypeError, IndexError) as exc:
            raise NotBlockwise(f"the function does not run on a block of its dask "
                               f"arguments: {exc}") from exc
    plan = analyse(traces[0].graph, traces[1].graph, lengths)
    if any(leaf[0] != "result" or leaf[3] is not None for leaf in traces[0].out_leaves):
        raise NotBlockwise("the function returns an argument itself or a Python value; "
                           "return computed arrays")
    return plan, traces[0]


def _example_blocks(args: tuple, chunking: Chunking, lengths: dict[str, int]) -> tuple:
    """Uninitialised NumPy stand-ins for one block of each dask argument."""
    out = list(args)
    for i, letters in chunking.letters.items():
        a = args[i]
        shape = tuple(lengths.get(c, n) for c, n in zip(letters, a.shape, strict=True))
        out[i] = np.empty(shape, a.dtype)
    return tuple(out)


def _blockwise_inputs(args: tuple, chunking: Chunking) -> list:
    return [x for i, a in enumerate(args)
            for x in (a, chunking.letters.get(i))]


def _mapped(jitted, labels: tuple, result: TensorType, args, kwargs, chunking: Chunking):
    """One blockwise task per block for a function of one result."""
    import dask.array as da

    fresh = iter(c for c in string.ascii_uppercase)
    out_index, new_axes = "", {}
    for label, n in zip(labels, result.shape, strict=True):
        if label is None:
            letter = next(fresh)
            new_axes[letter] = n
        else:
            letter = chunking.chunked[label]
        out_index += letter
    return da.blockwise(_Block(jitted, kwargs, only=True), out_index,
                        *_blockwise_inputs(args, chunking), new_axes=new_axes,
                        concatenate=True, dtype=result.dtype,
                        meta=np.empty((0,) * len(out_index), result.dtype))


def _mapped_several(jitted, plan: Plan, results: list[TensorType], args, kwargs,
                    chunking: Chunking) -> list:
    """One task per block computing every result (a tuple), and one dask array
    per result picking its part of each task's tuple (as dask's apply_gufunc
    does)."""
    import dask
    import dask.array as da
    from dask.array.core import Array
    from dask.highlevelgraph import HighLevelGraph

    loops = "".join(chunking.chunked)
    tasks = da.blockwise(_Block(jitted, kwargs, leaves=True), loops,
                         *_blockwise_inputs(args, chunking), concatenate=True,
                         meta=tuple(np.empty((0,) * r.ndim, r.dtype) for r in results))
    keys = list(dask.core.flatten(tasks.__dask_keys__()))
    out = []
    for i, (labels, result) in enumerate(zip(plan.labels, results, strict=True)):
        name = f"{tasks.name}-result{i}"
        layer = {(name, *(key[1 + label] if label is not None else 0 for label in labels)):
                 (operator.getitem, key, i) for key in keys}
        chunks = tuple(chunking.chunks[chunking.chunked[label]] if label is not None else (n,)
                       for label, n in zip(labels, result.shape, strict=True))
        graph = HighLevelGraph.from_collections(name, layer, dependencies=[tasks])
        out.append(Array(graph, name, chunks=chunks,
                         meta=np.empty((0,) * result.ndim, result.dtype)))
    return out


@dataclass(frozen=True)
class _Block:
    """A task's function: the jitted function on one block of each argument
    (pickled by reference or by value with it; kwargs travel with it)."""

    jitted: object
    kwargs: dict
    keep: int = -1      # >= 0: the partial gets this many leading length-1 axes
    weight: tuple = ()  # ((argument, axis) per label): scale by the block's size
    leaves: bool = False  # results as a flat tuple
    only: bool = False  # the one result, out of the tuple it may come in

    def __repr__(self) -> str:  # dask names tasks after it
        return f"jitaic-{getattr(self.jitted, '__name__', 'function')}"

    def __call__(self, *blocks):
        out = self.jitted(*blocks, **self.kwargs)
        if self.leaves:
            return tuple(flatten(out)[0])
        if self.only:
            return flatten(out)[0][0]
        if self.keep < 0:
            return out
        leaves, _ = flatten(out)
        flat = np.concatenate([np.ravel(np.asarray(x)) for x in leaves]) if len(leaves) > 1 \
            else np.ravel(np.asarray(leaves[0]))
        if self.weight:
            flat = flat * math.prod(blocks[i].shape[axis] for i, axis in self.weight)
        return flat.reshape((1,) * self.keep + flat.shape)


def _label_axes(chunking: Chunking) -> tuple[tuple[int, int], ...]:
    """(argument, axis) where each label can be measured on a block."""
    return tuple(next((i, letters.index(c)) for i, letters in chunking.letters.items()
                      if c in letters) for c in chunking.chunked)


def _partials(jitted, args, kwargs, chunking: Chunking, weighted: bool, size: int, dtype):
    """One row of ``size`` values per block (times the block's size when
    weighted), laid out on a grid of blocks, as a dask array."""
    import dask.array as da

    k = len(chunking.chunked)
    block = _Block(jitted, kwargs, keep=k, weight=_label_axes(chunking) if weighted else ())
    return da.blockwise(block, "".join(chunking.chunked) + "Z",
                        *_blockwise_inputs(args, chunking), new_axes={"Z": size},
                        concatenate=True, dtype=dtype, meta=np.empty((0,) * (k + 1), dtype))


def _reduced(jitted, plan: Plan, result: TensorType, args, kwargs, chunking: Chunking):
    weighted = plan.reduction == "mean"
    dtype = np.dtype(np.float64) if weighted else result.dtype
    partials = _partials(jitted, args, kwargs, chunking, weighted, 1, dtype)
    axes = tuple(range(len(chunking.chunked) + 1))
    if weighted:
        total = partials.sum(axis=axes) / _elements(chunking)
    else:
        total = getattr(partials, plan.reduction)(axis=axes)
    return total.astype(result.dtype)


def _elements(chunking: Chunking) -> int:
    """Blocks' sizes along the chunked axes multiply to the whole's: the weights
    of a mean's partials are block sizes, so this is what they sum to."""
    return math.prod(sum(chunking.chunks[c]) for c in chunking.chunked)


def _gradient(jitted, recipe: tuple, args, kwargs, chunking: Chunking):
    """jit(grad(loss)) over dask arrays: per-block gradients of a sum or mean
    loss, summed (weighted by block size for a mean) by dask's tree."""
    import dask.array as da

    from jitaic.api import jit
    from jitaic.autodiff.reverse import grad

    transform, (argnums, has_aux, *_) = recipe
    if transform is not grad or has_aux:
        raise UnsupportedError("on dask arrays, jitaic differentiates with jit(grad(loss)) "
                               "(no has_aux, value_and_grad or vjp yet)")
    wrt = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if any(isinstance(args[i], da.Array) for i in wrt):
        raise UnsupportedError("a gradient with respect to a dask array is not supported "
                               "yet: differentiate with respect to the NumPy arguments")
    loss = jit(jitted.__wrapped__.__wrapped__, mode=jitted.mode)
    plan, _ = _plan(loss, args, kwargs, chunking)
    if plan.reduction not in ("sum", "mean"):
        raise NotBlockwise("a gradient over dask arrays needs a loss that is a sum or a "
                           "mean over the chunked axes")
    trees = [flatten(args[i]) for i in wrt]
    leaves = [np.asarray(x) for tree_leaves, _ in trees for x in tree_leaves]
    size = sum(x.size for x in leaves)
    dtype = np.result_type(*leaves)
    partials = _partials(jitted, args, kwargs, chunking, plan.reduction == "mean", size, dtype)
    flat = partials.sum(axis=tuple(range(len(chunking.chunked))))
    if plan.reduction == "mean":
        flat = flat / _elements(chunking)
    out, start = [], 0
    for tree_leaves, tree in trees:
        parts = []
        for x in tree_leaves:
            x = np.asarray(x)
            parts.append(flat[start:start + x.size].reshape(x.shape).astype(x.dtype))
            start += x.size
        out.append(unflatten(tree, parts))
    return out[0] if isinstance(argnums, int) else tuple(out)
