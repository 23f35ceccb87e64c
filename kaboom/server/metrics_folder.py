"""The folder where the workers' metrics meet: prometheus-client's multiprocess mode.

Kept apart from :mod:`kaboom.server.metrics` because it must be ready before that module is
imported (the import writes this process's first counts into the folder)."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["MULTIPROCESS_DIR", "MetricsFolderError", "prepare"]

MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"
"""The environment variable that puts prometheus-client in multiprocess mode; read when
it is first imported, so it must be set before a worker imports :mod:`kaboom.server.metrics`."""

_OWN = re.compile(r"(counter|histogram|summary|gauge_[a-z]+)_\d+\.db")
"""The files prometheus-client writes (``counter_123.db``, ``gauge_liveall_123.db`` ...)."""


class MetricsFolderError(ValueError):
    """The operator's metrics folder cannot be used as it is."""


def prepare(folder: Path, store: Path | None = None) -> None:
    """Makes an operator's metrics folder if it is missing and deletes the counts an
    earlier run left in it (prometheus-client asks for the folder to be wiped before each
    start): left, a stopped run's workers stayed in the gauges as if alive, and a replaced
    version stayed in ``kaboom_build_info``.  Other files stay, but a ``.db`` file that
    is not prometheus-client's is refused, and so is a SQLite ``store`` that would be
    made there: the client reads every ``*.db`` in the folder as its own, and one SQLite
    database (the game store, say) made every scrape a 500."""
    folder.mkdir(parents=True, exist_ok=True)
    files = sorted(folder.glob("*.db"))
    foreign = [f.name for f in files if not _OWN.fullmatch(f.name)]
    if store is not None and store.suffix == ".db" and store.name not in foreign \
            and store.absolute().parent.resolve() == folder.resolve():
        foreign.append(store.name)
    if foreign:
        raise MetricsFolderError(
            f"{MULTIPROCESS_DIR}={folder} would hold {', '.join(foreign[:3])}:"
            " prometheus-client reads every .db file there as its own counts, so every"
            " scrape would fail; give the metrics a folder of their own"
        )
    for file in files:
        file.unlink(missing_ok=True)
