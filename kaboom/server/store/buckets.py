"""Token buckets in the store, for limits that every process on it shares (the rate of new
games per client, and of cells for all clients)."""

from __future__ import annotations

from typing import Any

__all__ = ["Buckets"]


class Buckets:
    """The SQL of the ``create_buckets`` table, over a backend's transactions."""

    dialect = "sqlite"

    def _tx(self, write: bool = True) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def take_token(self, client: str, now: float, rate: float, burst: float,
                   cost: float = 1.0) -> float:
        """Takes ``cost`` tokens (``cost`` ≤ ``burst``) from ``client``'s bucket (``burst``
        tokens, refilled at ``rate`` a second, shared by every process on the store);
        returns 0.0 when they were taken, else the seconds until they are there.  One
        statement takes them, so two processes can never both take the last ones.  A
        negative ``cost`` gives tokens back (the next refill caps them at ``burst``)."""
        least, greatest = ("LEAST", "GREATEST") if self.dialect == "postgresql" else ("MIN", "MAX")
        refill = (f"{least}(?, create_buckets.tokens"
                  f" + {greatest}(0, ? - create_buckets.updated_at) * ?)")
        with self._tx() as cur:
            taken = cur.execute(
                "INSERT INTO create_buckets (client, tokens, updated_at) VALUES (?, ?, ?)"
                f" ON CONFLICT (client) DO UPDATE SET tokens = {refill} - ?, updated_at = ?"
                f" WHERE {refill} >= ? RETURNING tokens",
                (client, burst - cost, now, burst, now, rate, cost, now, burst, now, rate, cost),
            ).fetchone()
            if taken is not None:
                return 0.0
            tokens, updated = cur.execute(
                "SELECT tokens, updated_at FROM create_buckets WHERE client = ?", (client,)
            ).fetchone()
        tokens = min(burst, float(tokens) + max(0.0, now - float(updated)) * rate)
        return max(0.0, cost - tokens) / rate
