"""Reading JSON that a user or a device hands us: one function, so nesting too deep for the parser is a
malformed file like any other (a ValueError naming the problem), never a RecursionError traceback."""

from __future__ import annotations

import json
from typing import Any


def loads(text: str | bytes) -> Any:
    """``json.loads``; JSON nested too deeply to read raises ValueError (the parser recurses per level)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None


__all__ = ["loads"]
