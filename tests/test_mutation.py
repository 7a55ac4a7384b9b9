"""In-place mutation of array arguments, NumPy style: what the caller sees.

Each test runs the plain NumPy function and the jitted one on fresh copies of
the same arguments and compares both the return values and the arguments
afterwards. Every check is done twice, so the cached (second) call is
checked as well as the compiling one.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same

import jitaic


def check_mutation(fn, make_args, tol: float = 1.0) -> None:
    f = jitaic.jit(fn)
    for _ in range(2):
        np_args, jit_args = make_args(), make_args()
        with np.errstate(all="ignore"):
            want = fn(*np_args)
        got = f(*jit_args)
        assert_same(got, want, tol=tol, path="return value")
        assert_same(jit_args, np_args, tol=tol, path="arguments after the call")
    assert f.cache_info().misses == 1


def _x(*shape, dtype=np.float64):
    n = int(np.prod(shape))
    return (np.arange(n, dtype=np.float64) * 1.5 - 4).reshape(shape).astype(dtype)


def slice_set_zero(x):
    x[1:3] = 0


def strided_iadd(x):
    x[::2] += 1
    return x.sum()


def index_imul(x):
    x[0] *= 2
    return x


def set_column_from_argument(x, v):
    x[:, 1] = v


def ellipsis_set(x):
    x[...] = 0
    return x * 1


def write_through_view(x):
    v = x[1:]
    v[0] = 5
    v[:, -1] += 10
    return v.sum(axis=0)


def write_through_transpose(x):
    t = x.T
    t[0] = -1
    t[1:, 2] *= 3


def iadd_argument(x):
    x += 1


def iadd_two_arguments(x, y):
    x += y
    y -= 1
    return x * y


def local_copy_leaves_argument(x):
    y = x.copy()
    y[0] = 100
    y += 1
    return y


def mutate_and_return(x):
    x *= 2
    return x, x.sum()


def read_after_write(x):
    x[0] = 1.0
    return x.sum(), x[0, 0]


def view_sees_later_write(x):
    col = x[:, 0]
    x[0, 0] = 7.0
    x[1:, 0] += 1
    return col * 1


def float_into_int_array(x):
    x[0] = 2.7
    x[1] = -2.7
    x[2:] += 1


def overlapping_shift(x):
    x[1:] = x[:-1]


def reverse_in_place(x):
    x[::-1] = x.copy()
    x[:, ::-1] = x


def broadcast_into_slice(x, v):
    x[:, :2] = v
    x[1] += x[0]


def dict_argument_mutated(state):
    state["x"] += state["dx"]
    return state["x"].sum()


def returns_nothing(x, y):
    x[:] = y[::-1]


def view_of_local_then_write(x):
    y = x * 2
    first = y[0]  # a view: sees the write below
    snapshot = y[0] * 1  # a copy: does not
    total = y.sum()
    t = y.T
    y[0] = 5
    return first, snapshot, total, t[0] + 0, y


def python_alias_of_local(x):
    y = x + 1
    z = y
    z += 1
    return y


def rebinding_is_not_mutation(x):
    x = x + 1
    x[0] = 0
    return x


def write_through_reshape_view(x):
    v = x.reshape(2, 3)  # contiguous: a view
    v[0] = 1.0
    x.ravel()[-1] = 9.0  # also a view
    r = x.reshape(2, 3).T.reshape(-1)  # a copy: writes do not reach x
    r[0] = 100.0


def write_through_expand_dims_and_squeeze(x):
    x[None][0, 1] = 3.0
    np.expand_dims(x, 0)[0, 2] = 4.0
    x[:, None].squeeze()[3] = 5.0


def astype_same_dtype_copies(x):
    y = x.astype(np.float64)  # copy=True by default, even for the same dtype
    y[0] = 9.0
    z = np.array(x)  # np.array copies too
    z[1] = 9.0
    return y, z


def asarray_and_full_slice_alias(x):
    y = np.asarray(x)  # the same array: writes reach x
    y[0] = -9.0
    z = x[:]
    z[1] = -8.0
    w = x[...]
    w[2] += 100


def assign_own_transpose(x):
    x[:] = x.T


def iadd_own_transpose(x):
    x += x.T


def iadd_overlapping_shift(x):
    x[1:] += x[:-1]


CASES = {
    "slice_set_zero": (slice_set_zero, lambda: (_x(5, 3),)),
    "strided_iadd": (strided_iadd, lambda: (_x(7),)),
    "index_imul": (index_imul, lambda: (_x(3, 4),)),
    "set_column_from_argument": (set_column_from_argument, lambda: (_x(3, 4), _x(3) + 100)),
    "ellipsis_set": (ellipsis_set, lambda: (_x(2, 3),)),
    "write_through_view": (write_through_view, lambda: (_x(4, 3),)),
    "write_through_transpose": (write_through_transpose, lambda: (_x(3, 4),)),
    "iadd_argument": (iadd_argument, lambda: (_x(3, 4),)),
    "iadd_argument_int32": (iadd_argument, lambda: (_x(5, dtype=np.int32),)),
    "iadd_two_arguments": (iadd_two_arguments, lambda: (_x(3, 4), _x(4) * 2)),
    "local_copy_leaves_argument": (local_copy_leaves_argument, lambda: (_x(3, 2),)),
    "mutate_and_return": (mutate_and_return, lambda: (_x(4),)),
    "read_after_write": (read_after_write, lambda: (_x(2, 2),)),
    "view_sees_later_write": (view_sees_later_write, lambda: (_x(3, 2),)),
    "float_into_int_array": (float_into_int_array, lambda: (_x(5, dtype=np.int64),)),
    "overlapping_shift": (overlapping_shift, lambda: (_x(6),)),
    "reverse_in_place": (reverse_in_place, lambda: (_x(4, 3),)),
    "broadcast_into_slice": (broadcast_into_slice, lambda: (_x(3, 4), np.array([9.0, 8.0]))),
    "dict_argument_mutated": (dict_argument_mutated,
                              lambda: ({"x": _x(3), "dx": np.ones(3)},)),
    "returns_nothing": (returns_nothing, lambda: (_x(4), _x(4) * 3)),
    "view_of_local_then_write": (view_of_local_then_write, lambda: (_x(3, 2),)),
    "python_alias_of_local": (python_alias_of_local, lambda: (_x(4),)),
    "rebinding_is_not_mutation": (rebinding_is_not_mutation, lambda: (_x(4),)),
    "write_through_reshape_view": (write_through_reshape_view, lambda: (_x(6),)),
    "write_through_expand_dims_and_squeeze": (write_through_expand_dims_and_squeeze,
                                              lambda: (_x(5),)),
    "astype_same_dtype_copies": (astype_same_dtype_copies, lambda: (_x(3),)),
    "asarray_and_full_slice_alias": (asarray_and_full_slice_alias, lambda: (_x(4),)),
    "assign_own_transpose": (assign_own_transpose, lambda: (_x(3, 3),)),
    "iadd_own_transpose": (iadd_own_transpose, lambda: (_x(3, 3),)),
    "iadd_overlapping_shift": (iadd_overlapping_shift, lambda: (_x(6),)),
}


@pytest.mark.parametrize("name", CASES)
def test_mutation_matches_numpy(name: str) -> None:
    fn, make_args = CASES[name]
    check_mutation(fn, make_args)


# ---------------------------------------------------------------- views and layouts as arguments


def test_mutating_a_strided_view_argument_updates_its_base() -> None:
    def fn(x):
        x[0] = 9.0
        x[:, -1] *= -1

    f = jitaic.jit(fn)
    np_base, jit_base = _x(4, 6), _x(4, 6)
    fn(np_base[1:, ::2])
    f(jit_base[1:, ::2])
    np.testing.assert_array_equal(jit_base, np_base)


@pytest.mark.parametrize("layout", ["fortran", "negative_stride"])
def test_mutating_non_c_layouts(layout: str) -> None:
    def fn(x):
        x[1:, 0] = x[:-1, 1]
        x += 1

    make = {"fortran": lambda: np.asfortranarray(_x(3, 4)),
            "negative_stride": lambda: _x(3, 4)[::-1, ::-1]}[layout]
    a, b = make(), make()
    fn(a)
    jitaic.jit(fn)(b)
    np.testing.assert_array_equal(b, a)


def test_same_array_passed_twice() -> None:
    """Aliased arguments: a write through one name is seen through the other."""

    def fn(x, y):
        x += 1
        return y * 2

    a, b = _x(3), _x(3)
    want = fn(a, a)
    got = jitaic.jit(fn)(b, b)
    assert_same(got, want)
    assert_same(b, a)


# ------------------------------------------------------------ in-place updates in compiled loops


def _updated_through_one_name(a, b, n):
    k = 0
    while k < n:
        b += np.abs(a)  # a may be b
        k += 1
    return a


def _updated_through_an_alias(a, n):
    b = a
    for _ in range(n):
        b += a
    return a


def _updated_through_a_view(a, n):
    b = a[1:]
    i = 0
    while i < n:
        b *= 2
        a[0] += a[1]  # reads what b wrote
        i += 1
    return a


@pytest.mark.parametrize("make_args", [
    lambda: (lambda x: (x, x, 3))(_x(4)),
    lambda: (_x(4), _x(4), 3),
    lambda: (_x(3)[:1].reshape(()),) * 2 + (2,),
], ids=["same_array", "different_arrays", "same_0d"])
def test_loop_updates_an_argument_passed_twice(make_args) -> None:
    """The loop is compiled (AST mode): each iteration reads the other name fresh."""
    f = jitaic.jit(_updated_through_one_name, mode="ast")
    np_args, jit_args = make_args(), make_args()
    assert_same(f(*jit_args), _updated_through_one_name(*np_args))
    assert_same(jit_args, np_args)


@pytest.mark.parametrize("fn", [_updated_through_an_alias, _updated_through_a_view])
def test_loop_updates_an_array_through_a_local_alias(fn) -> None:
    f = jitaic.jit(fn, mode="ast")
    np_x, jit_x = _x(4), _x(4)
    assert_same(f(jit_x, 3), fn(np_x, 3))
    assert_same(jit_x, np_x)


# ---------------------------------------------------------------- read-only arguments


@pytest.mark.parametrize("write", ["setitem", "iadd"])
def test_writing_to_a_readonly_argument_raises(write: str) -> None:
    def setitem(x):
        x[0] = 1.0

    def iadd(x):
        x += 1.0

    fn = {"setitem": setitem, "iadd": iadd}[write]
    x = _x(3)
    x.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        fn(x)  # NumPy's own behaviour, for reference
    with pytest.raises(ValueError, match="read-only") as info:
        jitaic.jit(fn)(x)
    assert "numba" not in str(info.value)
    np.testing.assert_array_equal(x, _x(3))


def write_broadcast_static(x, n):
    b = np.broadcast_to(x, (2, 3))
    b[0, 0] = 7.0
    return b


def write_broadcast_same_shape(x, n):
    b = np.broadcast_to(x, x.shape)
    b[0] = 7.0
    return b


def write_broadcast_run_time_length(x, n):
    b = np.broadcast_to(x[n[0]:], (3,))
    b[0] = 7.0
    return b


def write_imaginary_part(x, n):
    b = np.imag(x)
    b += 7.0
    return b


@pytest.mark.parametrize("fn", [write_broadcast_static, write_broadcast_same_shape,
                                write_broadcast_run_time_length, write_imaginary_part])
def test_writing_into_numpys_read_only_results_raises_its_value_error(fn) -> None:
    """np.broadcast_to's result (and a real array's imaginary part) is
    read-only in NumPy: a write raises ValueError, and x stays as it was."""
    x, n = _x(3), np.array([2])
    with pytest.raises(ValueError, match="read-only"):
        fn(x, n)
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        jitaic.jit(fn)(x, n)
    np.testing.assert_array_equal(x, _x(3))


def broadcast_then_write_the_argument(x, n):
    b = np.broadcast_to(x, (2, 3))
    c = np.broadcast_to(x[n[0]:], (2, 3 - n[0]))
    d, e = np.broadcast_arrays(x, np.ones((2, 1)))
    x[-1] = 5.0
    return b, c, d, e


def test_broadcast_views_show_later_writes_into_their_array() -> None:
    """np.broadcast_to and np.broadcast_arrays give views: a write into the
    argument afterwards shows through them, as in NumPy."""
    x, n = _x(3), np.array([1])
    assert_same(jitaic.jit(broadcast_then_write_the_argument)(x.copy(), n),
                broadcast_then_write_the_argument(x.copy(), n))


def write_broadcast_arrays(x, y):
    a, b = np.broadcast_arrays(x, y)
    a += 1.0  # a is x itself: NumPy's write reaches x
    b += 1.0  # b repeats y's one element: refused
    return a, b


def test_writes_into_broadcast_arrays_reach_the_argument_or_are_refused() -> None:
    x = _x(3)
    with pytest.raises(jitaic.UnsupportedError, match="np.broadcast_arrays broadcast"):
        jitaic.jit(write_broadcast_arrays)(x, np.ones(1))
    f = jitaic.jit(lambda x, y: np.broadcast_arrays(x, y)[0].__iadd__(1.0))
    f(x, np.ones(1))
    np.testing.assert_array_equal(x, _x(3) + 1.0)


def test_readonly_argument_that_is_only_read_is_fine() -> None:
    x = _x(3, 2)
    x.setflags(write=False)
    y = x.copy()
    f = jitaic.jit(lambda x: x.T @ x)
    assert_same(f(x), y.T @ y)


def shape_assigned(x):
    y = x * 2
    same, view = y, y[:]
    y.shape = (2, 3)  # this array object: `same` is it; the view keeps its shape
    y[0, 1] = -1.0
    return y, same.shape, view


def shape_assigned_needing_a_copy(x):
    y = (x * 2).reshape(2, 3).T
    y.shape = 6
    return y


def shape_assigned_to_a_scalar(x):
    s = x.sum()  # a NumPy scalar: its shape cannot be set
    s.shape = (1,)
    return s


def test_shape_assignment_reshapes_the_array_in_place() -> None:
    x = np.arange(6.0)
    got, want = jitaic.jit(shape_assigned)(x), shape_assigned(x)
    assert_same(got[0], want[0])
    assert got[1] == want[1] == (2, 3)
    assert_same(got[2], want[2])
    message = "Incompatible shape for in-place modification"
    with pytest.raises(AttributeError, match=message):
        shape_assigned_needing_a_copy(x)
    with pytest.raises(AttributeError, match=message):
        jitaic.jit(shape_assigned_needing_a_copy)(x)
    with pytest.raises(AttributeError, match="'numpy.generic' objects is not writable"):
        jitaic.jit(shape_assigned_to_a_scalar)(x)
    with pytest.raises(AttributeError, match="'numpy.generic' objects is not writable"):
        shape_assigned_to_a_scalar(x)
