"""Generates the per-layer translation modules (tl/gen/layer<N>.py)."""

from __future__ import annotations


def generate_layers() -> dict[str, str]:
    return {}
