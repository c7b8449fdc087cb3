"""Calls in /metrics (every process that ends calls counts its own; Prometheus sums)."""

from prometheus_client import Counter

CALLS_ENDED = Counter(
    "telesrv_calls_ended",
    "Private calls ended, by outcome (completed, disconnected, missed, declined, cancelled, busy) and kind",
    ["outcome", "kind"],
)
CALLS_REFUSED = Counter(
    "telesrv_calls_refused", "Call requests refused, by rule (privacy, blocked)", ["rule"]
)
CALL_SECONDS = Counter("telesrv_call_seconds", "Seconds of answered private calls, measured by the server")
