"""The long run, and replaying reproducers.

    python -m tests.fuzz --programs 100000 --seed 1 --jobs 2
    python -m tests.fuzz --replay tests/fuzz/corpus/*.py

Programs run in worker processes, a chunk of them each, so that a crash (a
segfault in compiled code) or a hang costs one program, not the run: the
program that was running is saved as a reproducer and the rest of its chunk
goes to a new worker. Each new kind of mismatch is shrunk by Hypothesis and
saved to the corpus (mode 0600) marked as a known failure. At the end a
summary: programs, time, verdicts per mode, mismatches by kind, refusals.
Workers share a private compile cache (trace/ast/auto often compile the same
kernel) that is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter

from . import corpus
from .case import load
from .search import check_module, search

PREFIX = "FUZZ "


def worker(args: argparse.Namespace) -> int:
    def emit(**event) -> None:
        print(PREFIX + json.dumps(event), flush=True)

    search(args.programs, args.seed, corpus.Known.from_corpus(args.corpus),
           on_program=lambda text, verdicts: emit(
               verdicts=[(v.mode, v.status, v.kind, v.detail[:300]) for v in verdicts]),
           on_start=lambda path: emit(start=path), directory=args.workdir,
           corpus_dir=args.corpus, shrink_seconds=args.shrink_seconds)
    return 0


class Tally:
    def __init__(self) -> None:
        self.programs = 0
        self.verdicts: Counter = Counter()  # (mode, status)
        self.mismatches: Counter = Counter()  # kind -> programs
        self.refusals: Counter = Counter()  # normalised message
        self.examples: dict[str, str] = {}

    def add(self, verdicts: list) -> None:
        self.programs += 1
        for mode, status, kind, detail in verdicts:
            self.verdicts[mode, status] += 1
            if status == "mismatch":
                self.mismatches[kind] += 1
                self.examples.setdefault(kind, detail)
            elif status == "unsupported":
                message = re.sub(r"\S+\.py:\d+", "FILE:LINE", detail)
                self.refusals[re.sub(r"\bv\d+\b", "vN", message)[:110]] += 1

    def report(self, seconds: float, new_files: list[str]) -> str:
        lines = [f"programs: {self.programs} in {seconds:.0f} s "
                 f"({self.programs / max(seconds, 1e-9):.2f}/s)"]
        for mode in sorted({m for m, _ in self.verdicts}):
            counts = ", ".join(f"{s} {n}" for (m, s), n in sorted(self.verdicts.items())
                               if m == mode)
            lines.append(f"  {mode}: {counts}")
        lines.append(f"mismatches by kind ({sum(self.mismatches.values())}):")
        lines += [f"  {n:6d}  {k}  e.g. {self.examples.get(k, '')[:100]}"
                  for k, n in self.mismatches.most_common()]
        lines.append("refusals (UnsupportedError), most common:")
        lines += [f"  {n:6d}  {msg}" for msg, n in self.refusals.most_common(12)]
        lines.append(f"new reproducers ({len(new_files)}):")
        lines += [f"  {path}" for path in new_files]
        return "\n".join(lines)


class Worker:
    """One worker process running ``count`` programs; what it is running now."""

    def __init__(self, count: int, seed: int, workdir: str, args, env: dict) -> None:
        self.count, self.done, self.current = count, 0, None
        self.last = time.monotonic()
        self.hung = False
        command = [sys.executable, "-m", __spec__.parent, "--worker", "--programs", str(count),
                   "--seed", str(seed), "--workdir", workdir, "--corpus", args.corpus,
                   "--shrink-seconds", str(args.shrink_seconds)]
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, env=env, text=True,
                                     start_new_session=True)


class Pool:
    """Up to ``--jobs`` workers, fed chunks from a queue; a chunk whose worker
    crashed or hung is saved as a reproducer and its rest queued again."""

    def __init__(self, args: argparse.Namespace, tmp: str) -> None:
        self.args, self.tmp = args, tmp
        self.env = dict(os.environ, JITAIC_CACHE_DIR=os.path.join(tmp, "cache"))
        self.queue = [min(args.chunk, args.programs - i)
                      for i in range(0, args.programs, args.chunk)]
        self.seeds = iter(range(args.seed * 1_000_003, args.seed * 1_000_003 + 10**6))
        self.running: dict = {}  # stdout -> Worker
        self.selector = selectors.DefaultSelector()

    def fill(self) -> None:
        while self.queue and len(self.running) < self.args.jobs:
            w = Worker(self.queue.pop(0), next(self.seeds), tempfile.mkdtemp(dir=self.tmp),
                       self.args, self.env)
            self.running[w.proc.stdout] = w
            self.selector.register(w.proc.stdout, selectors.EVENT_READ)

    def step(self, tally: Tally, start: float) -> None:
        for key, _ in self.selector.select(timeout=5):
            w = self.running[key.fileobj]
            line = key.fileobj.readline()
            w.last = time.monotonic()
            if not line:
                self.ended(w, tally)
            elif line.startswith(PREFIX):
                event = json.loads(line[len(PREFIX):])
                if "start" in event:
                    w.current = event["start"]
                    continue
                w.done += 1
                tally.add(event["verdicts"])
                if tally.programs % 100 == 0:
                    print(f"{tally.programs} programs, {time.monotonic() - start:.0f} s, "
                          f"{sum(tally.mismatches.values())} mismatches", flush=True)
        for w in self.running.values():
            if not w.hung and time.monotonic() - w.last > self.args.timeout:
                w.hung = True
                os.killpg(w.proc.pid, signal.SIGKILL)  # its own session: just it

    def ended(self, w: Worker, tally: Tally) -> None:
        self.selector.unregister(w.proc.stdout)
        del self.running[w.proc.stdout]
        code = w.proc.wait()
        if code > 0 and not w.hung:  # a Python error: the fuzzer's own bug
            raise SystemExit(f"worker failed (exit status {code}), see above")
        if code == 0:
            return
        why = "hang" if w.hung else f"crash:{signal.Signals(-code).name}"
        tally.add([("all", "mismatch", why, f"the worker stopped running {w.current}")])
        if w.current and os.path.exists(w.current):
            with open(w.current) as src:
                corpus.save(src.read(), "all", why, f"the process ended: {why}",
                            self.args.corpus)
        if w.count - w.done - 1 > 0:
            self.queue.append(w.count - w.done - 1)

    def stop(self) -> None:
        for w in self.running.values():
            os.killpg(w.proc.pid, signal.SIGKILL)
            w.proc.wait()


def long_run(args: argparse.Namespace) -> int:
    start = time.monotonic()
    tally = Tally()
    before = set(corpus.paths(args.corpus))
    with tempfile.TemporaryDirectory(prefix="jitaic-fuzz-") as tmp:  # mode 0700
        pool = Pool(args, tmp)
        try:
            while pool.queue or pool.running:
                pool.fill()
                pool.step(tally, start)
        finally:
            pool.stop()
    new = sorted(set(corpus.paths(args.corpus)) - before)
    print(tally.report(time.monotonic() - start, new))
    return 0


def replay(paths: list[str]) -> int:
    failed = 0
    for path in paths:
        verdicts = check_module(load(path))
        bad = [v for v in verdicts if v.status == "mismatch"]
        failed += bool(bad)
        print(f"{'FAIL' if bad else 'ok  '} {path}")
        for v in bad:
            print(f"     {v.mode}: {v.kind}: {v.detail}")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--programs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--chunk", type=int, default=100, help="programs per worker process")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds without progress before a worker counts as hung")
    p.add_argument("--shrink-seconds", type=float, default=120.0)
    p.add_argument("--corpus", default=corpus.CORPUS, help="where reproducers go")
    p.add_argument("--replay", nargs="+", metavar="FILE", help="check reproducers and exit")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--workdir", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.replay:
        return replay(args.replay)
    return worker(args) if args.worker else long_run(args)


if __name__ == "__main__":
    sys.exit(main())
