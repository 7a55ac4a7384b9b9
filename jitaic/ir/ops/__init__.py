"""THE op table: what each op is, defined once.

Each op has a name, traits, a shape/dtype rule (``infer``) and a NumPy
reference implementation (``reference``). Other concerns (lowering,
simplification, autodiff) keep their own registries keyed by these Op objects.

Dtype rules are NumPy's own: ufunc ops ask ``ufunc.resolve_dtypes`` (NEP 50
weak Python scalars included); other ops ask NumPy's reference on tiny example
values. Shapes broadcast with ``np.broadcast_shapes``.

The ops are defined by family, one module each; this package is their union,
so every consumer names an op as ``ops.<name>`` whatever its family.
"""

from jitaic.ir.ops.callbacks import *
from jitaic.ir.ops.control import *
from jitaic.ir.ops.core import *
from jitaic.ir.ops.elementwise import *
from jitaic.ir.ops.indexing import *
from jitaic.ir.ops.linalg import *
from jitaic.ir.ops.random import *
from jitaic.ir.ops.reductions import *
from jitaic.ir.ops.shapes import *
