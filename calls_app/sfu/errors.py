"""The adapter's one error signalling sees."""

from __future__ import annotations


class SfuUnavailable(Exception):
    """No SFU node answered; signalling turns it into an RPC error and changes nothing."""
