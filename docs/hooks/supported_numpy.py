"""The "Supported NumPy" page, generated from the tables that define it.

Every NumPy function, ufunc, ndarray method and ``ufunc.accumulate`` jitaic
traces is read from its dispatch tables (``jitaic.tracer.numpy.registry``,
``jitaic.ir.ops.UFUNC_OPS``, the constructors of ``numpy_proxy``), and matched
with the op table (``tests/op_table.py``): the rows that call it, which the
test suite compiles and compares with NumPy, and whether one of them is
differentiable (its gradient is checked against finite differences). The page
cannot drift from the code: it is rebuilt by every ``mkdocs build``, and
``tests/test_docs.py`` requires a row for every entry.
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

# the handler's module -> the page's section, in NumPy's own grouping
SECTIONS = {
    "ufuncs": "Ufuncs and operators", "mathematical": "Mathematical functions",
    "reductions": "Reductions", "statistics": "Statistics", "sorting": "Sorting and searching",
    "indexing": "Indexing", "shapes": "Shapes and joining", "rearranging": "Rearranging",
    "creation": "Array creation", "linalg": "Linear algebra",
    "decompositions": "Linear algebra", "sets": "Set routines", "common": "Other",
    "array_api": "Array API spellings", "index_routines": "Indexing",
    "polynomials": "Mathematical functions",
}
SECTIONS["indexing"] = "Indexing"


@dataclass
class Entry:
    name: str  # as a user writes it: np.linalg.solve, np.add, ndarray.sum
    section: str
    rows: list[str]  # op-table rows calling it
    gradient: str  # "yes" (checked against finite differences), "n/a", "-"
    aliases: list[str]  # np.abs for np.absolute


def op_table():
    """tests/op_table.py, imported by path (the docs build runs from the repo)."""
    if "op_table" not in sys.modules:
        spec = importlib.util.spec_from_file_location("op_table", ROOT / "tests" / "op_table.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["op_table"] = module
        spec.loader.exec_module(module)
    return sys.modules["op_table"]


def _row_sources() -> list[tuple[object, str]]:
    """(row, the source of its function and of the module-level helpers it
    calls by name)."""
    module = op_table()
    found = []
    for row in module.ROWS:
        source = inspect.getsource(row.fn)
        for name in row.fn.__code__.co_names:
            helper = getattr(module, name, None)
            if inspect.isfunction(helper):
                source += inspect.getsource(helper)
        found.append((row, source))
    return found


def _call_pattern(public: str) -> re.Pattern:
    """How a row's source calls an entry: ``np.linalg.solve(``, ``np.add.accumulate(``
    (or the ufunc itself for ``np.add``), ``.sum(`` for a method."""
    if public.startswith("ndarray."):
        return re.compile(rf"\.{public.removeprefix('ndarray.')}\b")
    return re.compile(rf"\b{re.escape(public)}\b")


def _public_name(fn: Callable) -> str:
    module = getattr(fn, "__module__", None) or "numpy"
    prefix = "np." + module.removeprefix("numpy").lstrip(".").replace("._", ".")
    if prefix.endswith(("linalg", "fft")):
        return f"{prefix.rstrip('.')}.{fn.__name__}".replace(".linalg.linalg", ".linalg")
    return f"np.{fn.__name__}"


def _handlers() -> Iterator[tuple[str, object, str]]:
    """(public name, the NumPy object or None, section) of everything jitaic
    traces."""
    from jitaic.ir import ops
    from jitaic.tracer import numpy_proxy
    from jitaic.tracer.core import Tracer
    from jitaic.tracer.numpy import registry

    for ufunc in [*ops.UFUNC_OPS, *ops.UFUNC_ALIASES, *registry.COMPOSITE_UFUNCS, np.matmul]:
        yield f"np.{ufunc.__name__}", ufunc, SECTIONS["ufuncs"]
    for ufunc in registry.ACCUMULATES:
        yield f"np.{ufunc.__name__}.accumulate", None, SECTIONS["ufuncs"]
    for fn, handler in registry.FUNCTIONS.items():
        section = SECTIONS.get(handler.__module__.rsplit(".", 1)[-1], SECTIONS["common"])
        yield _public_name(fn), fn, section
    for name, value in numpy_proxy._OVERRIDES.items():
        if callable(value) and not isinstance(value, type):  # np.ndarray, np.float64 ...
            yield f"np.{name}", getattr(np, name), SECTIONS["creation"]
    for name in registry.METHODS:
        if not name.startswith("__"):
            yield f"ndarray.{name}", None, METHODS
    for name, value in vars(Tracer).items():
        if isinstance(value, property) and not name.startswith("_") \
                and name not in ("aval", "value"):
            yield f"ndarray.{name}", None, METHODS


METHODS = "ndarray methods and attributes"
# where NumPy's documentation puts what jitaic's modules group otherwise
_SECTION_OF = {"np.where": "Indexing", "np.select": "Indexing",
               "np.broadcast_to": SECTIONS["shapes"], "np.copy": SECTIONS["creation"],
               "np.isclose": "Logic", "np.allclose": "Logic"}
_ORDER = [SECTIONS[k] for k in ("ufuncs", "mathematical")] + ["Logic"] + [
    SECTIONS[k] for k in ("reductions", "statistics", "sorting", "sets", "indexing", "shapes",
                          "rearranging", "creation", "linalg", "array_api", "common")] + [METHODS]


@functools.cache
def entries() -> list[Entry]:
    sources = _row_sources()
    found: dict[str, Entry] = {}
    for public, obj, section in _handlers():
        if public in found:
            continue
        names = [public, *_aliases(public, obj)]
        calling = [row for row, source in sources
                   if any(_call_pattern(name).search(source) for name in names)]
        found[public] = Entry(public, _SECTION_OF.get(public, section),
                              sorted(row.name for row in calling),
                              _gradient(names, calling), names[1:])
    return sorted(found.values(), key=lambda e: (_ORDER.index(e.section), e.name))


def _bare(name: str) -> str:
    """np.linalg.solve -> solve; np.add.accumulate -> add; ndarray.sum -> sum."""
    return name.split(".")[1] if name.endswith(".accumulate") else name.rsplit(".", 1)[-1]


def _gradient(names: list[str], calling: list) -> str:
    """"yes": a row testing it has its gradient checked against finite
    differences; "n/a": its rows give integer or boolean results only; "-":
    no gradient checked. The rows named after the function decide where
    there are any (``argmax`` rows, not a gather row that calls argmax)."""
    own = [r for r in calling if any(r.name == bare or r.name.startswith(bare + "_")
                                     for bare in map(_bare, names))]
    basis = own or calling
    if not basis:
        return "-"
    if not any(_float_result(row) for row in basis):
        return "n/a"
    return "yes" if any(r.differentiable and _float_result(r) for r in basis) else "-"


@functools.cache
def _float_result_of(name: str) -> bool:
    module = op_table()
    row = next(r for r in module.ROWS if r.name == name)
    args = module.make_args(row, row.cases[0], np.random.default_rng(0))
    with np.errstate(all="ignore"):
        out = row.fn(*(a.copy() for a in args))
    return any(np.asarray(x).dtype.kind == "f" for x in _leaves(out))


def _leaves(out) -> Iterator:
    """The arrays of a row's (nested) result."""
    if isinstance(out, (tuple, list)):
        for item in out:
            yield from _leaves(item)
    else:
        yield out


def _float_result(row) -> bool:
    return _float_result_of(row.name)


def _aliases(public: str, obj: object) -> list[str]:
    """Other names NumPy gives the same object (np.abs for np.absolute)."""
    if obj is None or not public.startswith("np.") or public.count(".") != 1:
        return []
    return sorted(f"np.{name}" for name, value in vars(np).items()
                  if value is obj and f"np.{name}" != public and not name.startswith("_"))


# What a table row cannot say: arguments, NumPy-specific orders and methods.
NOTES = """\
## Notes on particular functions

- **Reductions** (`sum`, `prod`, `max`, `min`, `mean`, `var`, `std`, `any`,
  `all`, `argmax`, `argmin`) take `axis=` (one or several), `keepdims=`,
  `ddof=`, and `where=` / `initial=` for sum, prod, max, min, mean, any, all.
  Float sums along the last axis and of whole C-ordered arrays are
  bit-identical to NumPy's pairwise sums.
- **`cumsum` / `cumprod`** keep NumPy's sequential order and dtypes;
  `np.maximum.accumulate` / `np.minimum.accumulate` propagate NaN.
- **`np.sort`, `np.argsort`**: `argsort` is stable (ties keep their order, as
  `kind="stable"`; NumPy's default introsort may order ties differently).
- **`np.median`, `np.quantile`, `np.percentile`**: static `q`, NumPy's default
  "linear" method and its dtypes, bit for bit; the chosen elements come from
  a quickselect per lane, not a sort.
- **`np.searchsorted`** (`side=`; NaN sorts last) and **`np.digitize`**
  (`right=`; increasing or decreasing bins) follow NumPy's rules.
- **`np.convolve` / `np.correlate`**: all three modes; kernels of up to 32
  taps are one fused loop of shifted slices, longer ones a BLAS product.
- **`np.interp`** uses NumPy's formula and its NaN retry, bit for bit;
  **`np.histogram`** takes a number of equal bins (NumPy's binning, bit for
  bit); **`np.polyval`** NumPy's Horner order.
- **`np.roll`, `np.tile`, `np.repeat`, `np.meshgrid`, the split family**:
  static shifts, counts, sections and split points; splits return views.
- **`np.pad`**: static widths; modes `constant` (`constant_values` a number,
  traced or not, or per-axis pairs), `edge`, `wrap`, `reflect` and
  `symmetric` (widths beyond the axis length included), padded axis by
  axis as NumPy does.
- **`np.einsum`**: subscripts or the operand-list form, ellipses (the
  broadcast axes, aligned from the right) and a letter repeated in one
  operand (its diagonal); two operands contracting summed letters only are
  one BLAS product; `dtype=` casts the operands first under `casting=`'s
  rule (NumPy's TypeError where it forbids the cast). `out=` goes to the
  NumPy callback.
- **`np.diagonal`, `np.trace`** of any number of axes with `offset`,
  `axis1`, `axis2`: the diagonal is NumPy's read-only view (writes into the
  array show in it; writes into it raise NumPy's ValueError).
- **`np.gradient`**: scalar spacings or coordinates, `axis=`, `edge_order`
  1 and 2, NumPy's formulas in NumPy's order (bit for bit), the result in
  the float dtype NumPy allocates. Uniform coordinates take the scalar
  formulas, as NumPy's do, chosen when the code runs.
- **`np.take`**: `mode="raise"`, `"wrap"` and `"clip"` (indices modulo the
  length, or clipped to it).
- **`np.linalg`**: `solve`, `inv`, `det`, `slogdet` and `cholesky` (`upper=`)
  on matrices or stacks of them, through LAPACK as numba calls it, within
  rounding of NumPy; NaN or inf input raises `LinAlgError`.
  `matrix_power` takes n >= 0; `norm` takes `ord=` (vector: 1, 2, inf, -inf,
  0, p; matrix: "fro", 1, -1, inf, -inf).
- **Matrix products** (`@`, `np.matmul`, `np.dot`, `np.outer`, `np.inner`)
  call the BLAS NumPy links, with the routine NumPy would pick, and equal
  NumPy's results bit for bit. `np.dot` of arrays beyond 2-D pairs every
  row of the first with every column of the second, as NumPy's (no
  broadcasting: a tensordot).
- **Constructors** (`zeros`, `ones`, `full`, `empty`, `arange`, `eye`,
  `linspace`...) take static shapes; `linspace` also traced endpoints.
  Arrays from globals and closures become constants.

## Indexing and assignment

Basic indexing (ints, slices with negative bounds and steps, `None`,
`...`), integer-array indexing (`x[idx]`, `x[:, idx]`, `x[rows, cols]`, with
NumPy's placement rules; negative indices wrap, out-of-range ones raise
`IndexError`; index arrays may have run-time lengths), boolean masks
(`x[mask]` with a traced mask has a length known at run time only, `f64[?]`
in the IR: reduce it, compute with it, assign it), `x[mask] = v`,
`x[idx] = v`, `np.add.at`, and slice assignment `x[...] = v` /
`x[...] += v`, which writes into array arguments exactly as NumPy does.
Inside loops an index may be the loop variable, also as a slice bound
([Control flow](control-flow.md)).
"""


def page() -> str:
    """The Markdown of docs/numpy.md."""
    all_entries = entries()
    sections: dict[str, list[Entry]] = defaultdict(list)
    for entry in all_entries:
        sections[entry.section].append(entry)
    lines = [
        "# Supported NumPy",
        "",
        "<!-- generated by docs/hooks/supported_numpy.py from jitaic's dispatch tables and "
        "the op table; do not edit -->",
        "",
        f"jitaic traces these {len(all_entries)} NumPy functions, ufuncs, methods and "
        "attributes. The page is generated from the tables jitaic dispatches through, so "
        "it lists exactly what the code handles. Each entry names the rows of the op table "
        "(`tests/op_table.py`) that call it: the test suite compiles every row and "
        "compares it with NumPy (values, dtypes, shapes, NaN and infinities). "
        "**Gradient**: *yes*, a row testing it has its gradient checked against finite "
        "differences; *n/a*, its results are integers or booleans; *-*, no gradient "
        "is checked (it may still have one).",
        "",
        "Everything else (and some arguments of these, such as `out=` on most "
        "functions) raises `jitaic.UnsupportedError` naming the call and your line; "
        "[Differences from NumPy](differences.md) lists what behaves differently. "
        "The Python operators (`+ - * / // % ** @`, comparisons, `& | ^ ~ << >>`, "
        "their in-place forms) are the ufuncs of the same names. Indexing, and notes "
        "on particular functions, follow the tables.",
        "",
    ]
    for section in _ORDER:
        if section not in sections:
            continue
        lines += [f"## {section}", "", "| function | also | gradient | op-table rows |",
                  "|---|---|---|---|"]
        for e in sections[section]:
            rows = ", ".join(f"`{r}`" for r in e.rows[:5]) + (" ..." if len(e.rows) > 5 else "")
            also = ", ".join(f"`{a}`" for a in e.aliases)
            lines.append(f"| `{e.name}` | {also} | {e.gradient} | {rows} |")
        lines.append("")
    return "\n".join(lines) + "\n" + NOTES


if __name__ == "__main__":
    print(page())  # noqa: T201
