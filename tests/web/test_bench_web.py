"""`bench/web_latency.py` still measures clicks on the real page (results only, no timings).

The page's CSP (script-src 'self') refused the benchmark's in-page probe after the server's
hardening, and nothing noticed.
"""

from __future__ import annotations

from pathlib import Path

from tests.benchkit import bench_report, run_bench
from tests.web.conftest import CHROMIUM


def test_web_latency_times_every_click(tmp_path: Path) -> None:
    out = tmp_path / "web.json"
    run_bench("web_latency.py", "--sizes", "9x9/10", "--clicks", "5", "--chromium", CHROMIUM,
              "--json", str(out))
    [row] = bench_report(out)["results"]
    assert row["size"] == "9x9/10" and row["games"] >= 1
    for part in ("click_to_frame_ms", "server_ms", "app_ms", "first_frame_ms", "page_ms"):
        assert row[part]["n"] == 5, part
    # the server's own time (its Server-Timing) is part of the time to the first byte
    assert 0 < row["app_ms"]["p50"] <= row["server_ms"]["max"]
    assert row["frame_shown"]["n"] == 5 and row["frame_shown"]["p50"] >= 1
