"""TensorType: the static type of every IR value, and dtype promotion.

A scalar is a 0-d tensor. ``weak`` marks values that came from Python scalars
(NEP 50): they take the dtype of the arrays they meet instead of promoting it.
A dimension of ``None`` is known only at run time (today: the length of a
tape, the growable stack a while loop's gradient records).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SUPPORTED_DTYPES = tuple(
    np.dtype(d)
    for d in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
              "uint32", "uint64", "float32", "float64", "complex64", "complex128")
)
SUPPORTED_TEXT = "bool, integers, float32, float64, complex64, complex128"

_SHORT = {
    "bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float32": "f32", "float64": "f64", "complex64": "c64", "complex128": "c128",
    "object": "generator",  # (ir/ops/random.py: the one object a graph carries)
}


@dataclass(frozen=True)
class TensorType:
    shape: tuple[int | None, ...]
    dtype: np.dtype
    weak: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", tuple(None if d is None else int(d)
                                                for d in self.shape))
        object.__setattr__(self, "dtype", np.dtype(self.dtype))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def static(self) -> bool:
        return None not in self.shape

    @property
    def size(self) -> int | None:
        return int(np.prod(self.shape, dtype=np.int64)) if self.static else None

    def with_shape(self, shape: tuple[int, ...]) -> TensorType:
        return TensorType(shape, self.dtype, self.weak and shape == ())

    def __str__(self) -> str:
        dims = ",".join("?" if d is None else str(d) for d in self.shape)
        weak = "~" if self.weak else ""
        return f"{weak}{short_dtype(self.dtype)}[{dims}]"


def short_dtype(dtype: np.dtype) -> str:
    return _SHORT.get(np.dtype(dtype).name, np.dtype(dtype).name)


def is_float(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f"


def example_operand(t: TensorType) -> object:
    """What NumPy's promotion should see for a value of this type.

    Weak scalars are Python scalars (NEP 50); everything else is a dtype.
    """
    if t.weak and t.dtype.kind != "b":  # resolve_dtypes takes int/float, not bool
        return {"i": int, "u": int, "f": float, "c": complex}[t.dtype.kind]
    return t.dtype


def example_value(t: TensorType) -> object:
    """A tiny concrete value of this type, for asking NumPy what it would do."""
    if t.weak:
        return {"b": True, "i": 1, "u": 1, "f": 1.0, "c": 1.0 + 0j}[t.dtype.kind]
    return np.ones((1,) * t.ndim, dtype=t.dtype)


def check_supported_dtype(dtype: np.dtype, what: str) -> np.dtype:
    from jitaic.errors import UnsupportedError

    dtype = np.dtype(dtype)
    if dtype not in SUPPORTED_DTYPES:
        raise UnsupportedError(f"{what} has dtype {dtype}, which jitaic does not support "
                               f"(supported: {SUPPORTED_TEXT})")
    return dtype
