"""The persistent cache of compiled specialisations, from the command line.

    python -m jitaic.cache            # where it is, its size, entries and hit rate
    python -m jitaic.cache --clear    # delete every entry
    python -m jitaic.cache --prune    # delete what other versions of jitaic wrote

``JITAIC_CACHE_DIR`` moves the cache (``off`` turns it off) and
``JITAIC_CACHE_MB`` bounds its size; see ``jitaic/lower/disk_cache.py``.
"""

from __future__ import annotations

import argparse
import datetime
import sys

from jitaic.lower import disk_cache


def info() -> dict[str, object] | None:
    """The cache's location, size, entries and recorded loads and compiles;
    None when it is off."""
    root = disk_cache.directory()
    return None if root is None else disk_cache.summary(root)


def clear() -> int:
    """Delete every entry of the cache in use; returns how many went."""
    root = disk_cache.directory()
    return 0 if root is None else disk_cache.clear(root)


def _report(summary: dict[str, object]) -> str:
    last = summary["last_use"]
    when = datetime.datetime.fromtimestamp(last).isoformat(" ", "seconds") if last else "never"
    return "\n".join([
        f"directory:  {summary['directory']}",
        f"size:       {summary['bytes'] / 2**20:.1f} MiB of {summary['limit_bytes'] / 2**20:.0f}"
        f" MiB (JITAIC_CACHE_MB)",
        f"entries:    {summary['entries']} ({summary['current']} of this version)",
        f"loads:      {summary['loads']}, compiles: {summary['compiles']}"
        f" (hit rate {summary['hit_rate']:.0%})",
        f"last used:  {when}",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jitaic.cache", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--clear", action="store_true", help="delete every entry")
    action.add_argument("--prune", action="store_true",
                        help="delete entries written by other versions of jitaic")
    options = parser.parse_args(argv)
    root = disk_cache.directory()
    if root is None:
        print("the disk cache is off (JITAIC_CACHE_DIR=off)")
        return 0
    if (options.clear or options.prune) and not disk_cache.usable_root(root):
        print(f"{root} is not a directory of this user's that nobody else may write: "
              f"nothing deleted", file=sys.stderr)
        return 1
    if options.clear:
        print(f"deleted {disk_cache.clear(root)} entries from {root}")
    elif options.prune:
        print(f"deleted {disk_cache.prune(root)} entries of other versions from {root}")
    else:
        print(_report(disk_cache.summary(root)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
