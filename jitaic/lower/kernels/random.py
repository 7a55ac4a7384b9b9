"""Draws from NumPy Generators: numba's own Generator methods, which compute
NumPy's streams bit for bit (choice without replacement, with or without
p, and wald: lower/sampling.py);
a Generator np.random.default_rng makes is made by NumPy, in an object-mode
block (numba cannot construct one)."""

from __future__ import annotations

import numpy as np

from jitaic.ir import ops
from jitaic.ir.graph import Node
from jitaic.lower import loop_ir
from jitaic.lower.codegen import Emitter, int64_shape, np_type
from jitaic.lower.kernels.loops import lowering


@lowering(ops.generator_draw)
def _generator_draw(em: Emitter, node: Node) -> None:
    generator, *params = node.inputs
    if node.attrs["method"] in ops.OWN_DRAWS:
        _own_draw(em, node)
        return
    arguments = [em(p) for p in params]
    if node.attrs["size"] is not None:
        arguments.append(f"size={node.attrs['size']!r}")
    for name, value in node.attrs["options"]:
        arguments.append(f"{name}={np_type(value) if name == 'dtype' else repr(value)}")
    call = f"{em(generator)}.{node.attrs['method']}({', '.join(arguments)})"
    em.line(f"{em.define(node.output)} = {call}")


def _own_draw(em: Emitter, node: Node) -> None:
    """A draw of lower/sampling.py's, which returns a 1-D array of draws."""
    generator, *params = node.inputs
    size = node.attrs["size"]
    count = 1 if size is None else int(np.prod(size, dtype=np.int64))
    call = (f"sampling.{node.attrs['method']}({em(generator)}, "
            f"{', '.join(em(p) for p in params)}, np.int64({count}))")
    em.line(f"{em.define(node.output)} = " +
            (f"{call}[0]" if size is None else f"{call}.reshape({int64_shape(size)})"))


@lowering(ops.default_rng)
def _default_rng(em: Emitter, node: Node) -> None:
    made = em.define(node.output, "generator")
    em.emit(loop_ir.Callback(((made, "rt.GENERATOR"),),
                             f"(np.random.default_rng({node.attrs['seed']!r}),)"))


@lowering(ops.generator_permutation)
def _generator_permutation(em: Emitter, node: Node) -> None:
    (generator,) = node.inputs
    (n,) = node.attrs["shape"]
    em.line(f"{em.define(node.output)} = {em(generator)}.permutation(np.int64({n}))")


@lowering(ops.generator_weighted_sample)
def _generator_weighted_sample(em: Emitter, node: Node) -> None:
    generator, p = node.inputs
    shape = node.attrs["shape"]
    call = (f"sampling.weighted_choice_without_replacement({em(generator)}, {em(p)}, "
            f"np.int64({int(np.prod(shape))}))")
    em.line(f"{em.define(node.output)} = {call}.reshape({shape!r})")


@lowering(ops.generator_sample)
def _generator_sample(em: Emitter, node: Node) -> None:
    (generator,) = node.inputs
    shape = node.attrs["shape"]
    call = (f"sampling.choice_without_replacement({em(generator)}, "
            f"np.int64({node.attrs['population']}), np.int64({int(np.prod(shape))}), "
            f"{node.attrs['shuffle']})")
    em.line(f"{em.define(node.output)} = {call}.reshape({shape!r})")
