"""The thread that compiles in the background (``jit(compile="background")``)."""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future


class _Worker:
    """One daemon thread that compiles in the background, a job at a time
    (numba holds a global compiler lock anyway). Daemon: a script that ends
    does not wait for a compile nobody will use (the disk cache's writes are
    atomic, so one cut short leaves nothing behind)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._work, name="jitaic-compiler", daemon=True).start()

    def submit(self, fn: Callable, *args: object) -> Future:
        future: Future = Future()
        self._jobs.put((future, fn, args))
        return future

    def _work(self) -> None:
        while True:
            future, fn, args = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args))
            except BaseException as exc:  # handed to the caller on its next call
                future.set_exception(exc)


_worker: _Worker | None = None
_lock = threading.Lock()


def submit(fn: Callable, *args: object) -> Future:
    """Run ``fn(*args)`` on the compiler thread (started on first use)."""
    global _worker
    with _lock:
        if _worker is None:
            _worker = _Worker()
    return _worker.submit(fn, *args)


def _forget_worker() -> None:
    global _worker, _lock
    _worker, _lock = None, threading.Lock()  # a forked child has no such thread


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_worker)
