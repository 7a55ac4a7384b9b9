"""Reverse-mode autodiff on the graph: ``grad``, ``value_and_grad``, ``vjp``
(``reverse.py``), the VJP rule of each op (``vjp_rules.py``) and of loops and
branches (``control_flow.py``)."""
