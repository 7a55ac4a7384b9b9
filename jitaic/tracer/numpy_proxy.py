"""Run the user's function with a ``numpy`` whose constructors return Tracers.

``np.zeros((n, m))`` inside a traced function must give a traced array: the
code goes on to write traced values into it. Functions the user calls are
converted the same way, recursively, so helpers are traced through (inlined).
NumPy functions that take arrays need no proxy: they dispatch to Tracers via
``__array_function__`` / ``__array_ufunc__``.
"""

from __future__ import annotations

import functools
import os
import sysconfig
import types
from collections.abc import Callable

import numpy as np

from jitaic.errors import TracedSequenceError, UnsupportedError, at, user_location
from jitaic.ir.types import check_supported_dtype
from jitaic.tracer import numpy as tnp
from jitaic.tracer.core import Tracer, current, new_tracer
from jitaic.tracer.numpy.callbacks import call_back
from jitaic.tracer.numpy.generators import default_rng

_LIBRARY_DIRS = tuple(
    os.path.abspath(p) for p in {sysconfig.get_paths()["stdlib"],
                                 sysconfig.get_paths()["purelib"],
                                 sysconfig.get_paths()["platlib"]}
)
_LIBRARY_MODULES = ("numpy", "jitaic", "numba", "scipy", "llvmlite")


def _constant_tracer(array: np.ndarray) -> Tracer:
    check_supported_dtype(array.dtype, "an array created in the traced function")
    return new_tracer(current().constant(array), scalar=False)


def _has_tracer(obj: object) -> bool:
    if isinstance(obj, Tracer):
        return True
    if isinstance(obj, (list, tuple)):
        return any(_has_tracer(o) for o in obj)
    return False


def _filled(fill: int) -> Callable:
    def constructor(shape, dtype=float, order="C", **kwargs):
        return tnp.full_value(shape, fill, np.dtype(dtype))

    return constructor


class _NdarrayType(type):
    """``np.ndarray`` inside traced code: ``isinstance(x, np.ndarray)`` holds for
    arrays and traced arrays, and ``np.ndarray(shape, dtype)`` makes an
    uninitialised array, like np.empty (zeros here)."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, np.ndarray) or (isinstance(obj, Tracer) and not obj._scalar)

    def __call__(cls, shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
        if buffer is not None or strides is not None:
            raise UnsupportedError(f"np.ndarray(..., buffer=/strides=) is not supported"
                                   f"{at(user_location())}")
        return tnp.full_value(shape, 0, np.dtype(dtype))


class ndarray(metaclass=_NdarrayType):  # noqa: N801  (NumPy's name)
    pass


class _ScalarType(type):
    """A NumPy scalar type inside traced code: called on a traced value
    (``np.float64(x.sum())``, ``np.int64(n)``) it casts it as NumPy does, to
    a NumPy scalar of a 0-d value and an array of any other; as a dtype
    (its ``dtype``), in ``isinstance`` and on constants it is NumPy's type."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, cls.numpy_type) or (
            isinstance(obj, Tracer) and obj._scalar and not obj.aval.weak  # (a Python number)
            and obj.dtype == cls.dtype)

    def __subclasscheck__(cls, other) -> bool:
        return issubclass(other, cls.numpy_type)

    def __call__(cls, value=0, *args, **kwargs):
        if not _has_tracer(value):
            return cls.numpy_type(value, *args, **kwargs)
        if isinstance(value, Tracer):
            result = tnp.astype(value, cls.dtype)
        else:
            result = tnp.array_from_nested(value, cls.dtype)
        return new_tracer(result.value, scalar=True) if result.ndim == 0 else result


def _scalar_types() -> dict[str, type]:
    """NumPy's concrete scalar types of numbers, by every name NumPy gives them."""
    found = {}
    for name in dir(np):
        numpy_type = getattr(np, name)
        if not (isinstance(numpy_type, type) and issubclass(numpy_type, np.generic)):
            continue
        try:
            dtype = np.dtype(numpy_type)
        except TypeError:  # an abstract one (np.floating)
            continue
        if numpy_type is dtype.type and dtype.kind in "biufc" and dtype != np.longdouble \
                and dtype != np.clongdouble:
            found[name] = _ScalarType(name, (), {"numpy_type": numpy_type, "dtype": dtype})
    return found


def full(shape, fill_value, dtype=None, order="C", **kwargs):
    return tnp.full_value(shape, fill_value, dtype)


def array(obj, dtype=None, copy=True, order="K", ndmin=0, **kwargs):
    if ndmin:
        raise UnsupportedError(f"np.array(..., ndmin=) is not supported{at(user_location())}")
    if _has_tracer(obj):
        if isinstance(obj, Tracer):
            result = tnp.astype(obj, dtype) if dtype is not None else tnp.as_array(obj)
            return tnp.not_a_scalar(tnp.copy_array(result) if copy or result is obj else result)
        return tnp.array_from_nested(obj, dtype)
    return _constant_tracer(np.array(obj, dtype=dtype))


def asarray(a, dtype=None, order=None, **kwargs):
    if isinstance(a, Tracer):
        return tnp.not_a_scalar(tnp.astype(a, dtype, copy=False) if dtype is not None
                                else tnp.as_array(a))
    return array(a, dtype, copy=False)


def _concrete(fn: Callable) -> Callable:
    """Constructors of concrete data (arange, eye, linspace): constants in the graph."""

    def constructor(*args, **kwargs):
        if any(_has_tracer(a) for a in (*args, *kwargs.values())):
            raise UnsupportedError(f"np.{fn.__name__} with traced arguments"
                                   f"{at(user_location())}: its size must be static")
        return _constant_tracer(np.asarray(fn(*args, **kwargs)))

    return constructor


def _constant_unless_traced(fn: Callable, traced: Callable) -> Callable:
    """NumPy's function, its arrays constants in the graph (np.linspace's
    retstep a NumPy scalar beside one), or jitaic's where an argument is traced."""

    def call(*args, **kwargs):
        if any(_has_tracer(a) for a in (*args, *kwargs.values())):
            return traced(*args, **kwargs)
        result = fn(*args, **kwargs)
        if isinstance(result, tuple):
            return tuple(_constant_tracer(r) if isinstance(r, np.ndarray) else r
                         for r in result)
        return _constant_tracer(result) if isinstance(result, np.ndarray) else result

    return call


def _as_array_if_traced(obj: object) -> object:
    """A list or tuple holding traced values as the array np.array makes of it."""
    if isinstance(obj, (list, tuple)) and _has_tracer(obj):
        return tnp.array_from_nested(obj)
    return obj


def _accepting_sequences(fn: Callable) -> Callable:
    """A NumPy function whose arrays may be lists or tuples of traced values
    (np.mean([x, y])): NumPy asks such a list for an array of itself, which
    fails; the call is made again with those lists made arrays first.
    Functions taking sequences of arrays (np.stack([x, y])) never fail there:
    NumPy dispatches them to jitaic for the Tracers inside."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TracedSequenceError:
            args = tuple(_as_array_if_traced(a) for a in args)
            kwargs = {k: _as_array_if_traced(v) for k, v in kwargs.items()}
            if not any(map(_has_tracer, (*args, *kwargs.values()))):
                raise
            return fn(*args, **kwargs)

    return call


def _items_1d(key: object) -> list[Tracer]:
    items = key if isinstance(key, tuple) else (key,)
    if any(isinstance(i, (str, slice)) for i in items):
        raise UnsupportedError(f"np.r_/np.c_ with slices or string directives among traced "
                               f"values{at(user_location())}")
    return [tnp.as_tracer(i) for i in items]


class _Concatenator:
    """np.r_ (axis 0, each item at least 1-D) and np.c_ (the last axis, 1-D
    items as columns); with no traced item, NumPy's own, as a constant."""

    def __init__(self, numpy_object, columns: bool) -> None:
        self._numpy_object, self._columns = numpy_object, columns

    def __getitem__(self, key):
        if not _has_tracer(key if isinstance(key, tuple) else (key,)):
            return _constant_tracer(np.asarray(self._numpy_object[key]))
        items = _items_1d(key)
        if not self._columns:
            return tnp.concatenate([tnp.reshape(i, (1,)) if i.ndim == 0 else i for i in items])
        items = [tnp.reshape(i, (-1, 1)) if i.ndim < 2 else i for i in items]
        return tnp.concatenate(items, axis=-1)


class _Grid:
    """np.mgrid and np.ogrid: NumPy's own grids, constants of the trace (an
    index array from them, ``N[Xi[m], Yi[m]]``, is a traced one)."""

    def __init__(self, numpy_object) -> None:
        self._numpy_object = numpy_object

    def __getitem__(self, key):
        entries = key if isinstance(key, tuple) else (key,)
        bounds = [b for e in entries for b in ((e.start, e.stop, e.step)
                                               if isinstance(e, slice) else (e,))]
        if _has_tracer(bounds):
            raise UnsupportedError(f"np.mgrid/np.ogrid with traced bounds"
                                   f"{at(user_location())}: the grid's size must be static")
        grid = self._numpy_object[key]
        if isinstance(grid, (list, tuple)):  # ogrid: one array per axis
            return type(grid)(_constant_tracer(np.asarray(g)) for g in grid)
        return _constant_tracer(np.asarray(grid))


def ndenumerate(arr):
    """Pairs of an index and the element there, in C order (a static shape)."""
    if not isinstance(arr, Tracer):
        return np.ndenumerate(arr)
    return ((index, arr[index]) for index in np.ndindex(arr.shape))


def _drawing(fn: Callable) -> Callable:
    """An np.random function (its global stream) called back from the compiled
    code: NumPy draws when the code runs, as the Python function would."""

    @functools.wraps(fn)
    def draw(*args, **kwargs):
        return call_back(fn, args, kwargs, draws=True)

    return draw


# np.random's functions of its global RandomState (rand, normal, seed, ...)
_RANDOM_FUNCTIONS = {name: getattr(np.random, name) for name in dir(np.random.mtrand._rand)
                     if not name.startswith("_") and hasattr(np.random, name)
                     and getattr(np.random, name) == getattr(np.random.mtrand._rand, name)}
_RANDOM_FUNCTIONS["seed"] = np.random.seed
_DRAWING = {id(fn): _drawing(fn) for fn in _RANDOM_FUNCTIONS.values()}


class _RandomModule:
    """``np.random`` in traced code: its global-stream functions draw when the
    compiled code runs, and so do the Generators ``default_rng`` makes;
    RandomState objects are not traced."""

    def __getattr__(self, name: str):
        if name == "default_rng":
            return default_rng
        fn = _RANDOM_FUNCTIONS.get(name)
        if fn is None:
            raise UnsupportedError(f"np.random.{name} is not supported{at(user_location())}: "
                                   f"pass random numbers, or a Generator's draws, in as "
                                   f"arguments")
        return _DRAWING[id(fn)]


_OVERRIDES: dict[str, object] = {
    "zeros": _filled(0), "ones": _filled(1), "empty": _filled(0), "full": full,
    "ndarray": ndarray,
    "array": array, "asarray": asarray, "asanyarray": asarray,
    "ascontiguousarray": asarray, "asfortranarray": asarray,
    "arange": _concrete(np.arange), "eye": _concrete(np.eye),
    "identity": _concrete(np.identity),
    "linspace": _constant_unless_traced(np.linspace, tnp.linspace),
    "logspace": _constant_unless_traced(np.logspace, tnp.logspace), "tri": _concrete(np.tri),
    "r_": _Concatenator(np.r_, columns=False), "c_": _Concatenator(np.c_, columns=True),
    "mgrid": _Grid(np.mgrid), "ogrid": _Grid(np.ogrid), "indices": _concrete(np.indices),
    "ndenumerate": ndenumerate,
    # not dispatched by NumPy: asarray would meet a Tracer
    "asarray_chkfinite": _constant_unless_traced(np.asarray_chkfinite, tnp.asarray_chkfinite),
    "common_type": _constant_unless_traced(np.common_type, tnp.common_type),
    "random": _RandomModule(),
    **_scalar_types(),
}


# NumPy's Python-level functions (np.mean, np.linalg.norm's kind), not ufuncs
_NUMPY_FUNCTION_TYPES = (type(np.mean), types.FunctionType)


class NumpyProxy(types.ModuleType):
    """``numpy`` as seen by traced code: NumPy itself except the constructors."""

    def __init__(self) -> None:
        super().__init__("numpy")
        self.__dict__.update(_OVERRIDES)

    def __getattr__(self, name: str):
        value = getattr(np, name)
        if isinstance(value, _NUMPY_FUNCTION_TYPES):
            value = _accepting_sequences(value)
            setattr(self, name, value)  # made once
        return value


PROXY = NumpyProxy()
_BY_IDENTITY = {id(getattr(np, name)): value for name, value in _OVERRIDES.items()
                if name != "random"}


def _is_user_function(fn: object) -> bool:
    if not isinstance(fn, types.FunctionType):
        return False
    module = (fn.__module__ or "").split(".")[0]
    filename = os.path.abspath(fn.__code__.co_filename)
    return module not in _LIBRARY_MODULES and not filename.startswith(_LIBRARY_DIRS)


def _referenced_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _referenced_names(const)
    return names


def _numpy_substitute(value: object) -> object | None:
    """What traced code sees instead of a NumPy module or function, if anything."""
    if value is np:
        return PROXY
    if isinstance(value, types.ModuleType) and value.__name__ == "numpy.random":
        return _OVERRIDES["random"]
    if callable(value) and id(value) in _BY_IDENTITY:
        return _BY_IDENTITY[id(value)]
    if callable(value) and id(value) in _DRAWING:  # from numpy.random import rand
        return _DRAWING[id(value)]
    if value is np.random.default_rng:
        return default_rng
    return None


class Converter:
    """Copies user functions with their globals and closures rebound to the proxy."""

    def __init__(self, transform: Callable | None = None) -> None:
        # id(function) -> (function, its copy); the function is kept alive so
        # its id cannot be reused by another object while this converter lives
        self._memo: dict[int, tuple[object, types.FunctionType]] = {}
        self._transform = transform  # e.g. the AST frontend's rewrite

    def replace(self, value: object) -> object:
        substitute = _numpy_substitute(value)
        if substitute is not None:
            return substitute
        return self.convert(value) if _is_user_function(value) else value

    def convert(self, fn: types.FunctionType) -> types.FunctionType:
        if id(fn) in self._memo:
            return self._memo[id(fn)][1]
        original = fn
        if self._transform is not None:
            fn = self._transform(fn)
        new_globals = dict(fn.__globals__)
        closure = None
        if fn.__closure__ is not None:
            closure = tuple(self._own_cell(c) for c in fn.__closure__)
        new = types.FunctionType(fn.__code__, new_globals, fn.__name__, fn.__defaults__,
                                 closure)
        new.__kwdefaults__ = fn.__kwdefaults__
        new.__dict__.update(fn.__dict__)
        # memoised before its globals and cells are converted: a function that
        # refers to itself (recursion; the AST rewrite refers to itself through
        # a cell) finds its copy instead of converting again
        self._memo[id(original)], self._memo[id(fn)] = (original, new), (fn, new)
        for cell, old in zip(closure or (), fn.__closure__ or (), strict=True):
            if cell is not old:
                cell.cell_contents = self.replace(cell.cell_contents)
        for name in _referenced_names(fn.__code__):
            if name in new_globals:
                new_globals[name] = self.replace(new_globals[name])
        return new

    def _own_cell(self, cell: types.CellType) -> types.CellType:
        """A new cell where the value will be replaced (filled in by convert);
        the same cell otherwise (a cell assigned later, as a recursive inner
        function's, must stay shared)."""
        try:
            value = cell.cell_contents
        except ValueError:
            return cell
        replaced = _numpy_substitute(value) is not None or _is_user_function(value)
        return types.CellType(value) if replaced else cell


def traceable(fn: Callable) -> Callable:
    """``fn`` ready to run on Tracers in the active trace (proxy numpy; AST rewrite
    when the trace uses the AST frontend)."""
    if not _is_user_function(fn):
        return fn
    converter = current().converter or Converter()
    return converter.convert(fn)
