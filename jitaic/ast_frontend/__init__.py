"""The AST frontend: rewrites ``if``/``while``/``for`` on array values into
structured control-flow calls (``transform.py``, ``loop_exits.py``) that
``runtime.py`` traces into ``cond``/``while_loop``/``for_loop`` ops."""
