"""TL: Telegram's type language. Schemas, generated classes, codec, layers, errors.

``from tl import types, functions, mt``; see docs/contracts.md and tl/README.md.
"""

from tl import mt
from tl.gen import functions, types

__all__ = ["functions", "mt", "types"]
