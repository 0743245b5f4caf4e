"""Reading JSON that a user or a device hands us: one function, so nesting too deep for the parser is a
malformed file like any other (a ValueError naming the problem), never a RecursionError traceback. And the
JSON Schemas roceconf publishes (schemas/), each stamped the same way; and a record's fields as the JSON
object a report writes."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from functools import cache
from operator import attrgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel


def loads(text: str | bytes) -> Any:
    """``json.loads``; JSON nested too deeply to read raises ValueError (the parser recurses per level)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None


def published_schema(model: type[BaseModel], file_name: str, title: str) -> dict[str, Any]:
    """``model``'s JSON Schema as it is published in schemas/``file_name``: the draft it follows, its ``$id``
    and its ``title``."""
    schema = model.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://roceconf.dev/schemas/{file_name}"
    schema["title"] = title
    return schema


@cache
def _getter(cls: type) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]:
    names = tuple(f.name for f in dataclasses.fields(cls))
    if len(names) == 1:
        return names, lambda record: (getattr(record, names[0]),)
    return names, attrgetter(*names)


def fields_of(record: Any) -> dict[str, Any]:
    """A dataclass instance's fields, name -> value, in the order they are declared (the values themselves,
    not copies)."""
    names, get = _getter(type(record))
    return dict(zip(names, get(record), strict=True))


__all__ = ["fields_of", "loads", "published_schema"]
