"""NVIDIA's NVUE schema as an offline oracle: the pydantic models of PyPI ``nvueschema`` (generated from the NVUE
OpenAPI spec of each Cumulus Linux release 5.0-5.18), made strict.

The generated models ignore unknown keys (pydantic's default ``extra="ignore"``; the package README: "They may
coerce values, ignore extra fields"), so a misspelt key would pass. :func:`model` sets ``extra="forbid"`` on
every model class of a release's module and rebuilds them in definition order (nested models are defined
before the models that use them), so a key the schema does not have is refused at any depth.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from nvueschema.models._versions import VERSIONS
from pydantic import BaseModel, ValidationError

__all__ = ["VERSIONS", "errors", "model", "patch_errors"]


@cache
def model(release: str) -> type[BaseModel]:
    """The strict ``NvueConfig`` model of one Cumulus Linux release ('5.15')."""
    mod = importlib.import_module("nvueschema.models.v" + release.replace(".", "_"))
    classes = [
        c
        for c in vars(mod).values()
        if isinstance(c, type) and issubclass(c, BaseModel) and c.__module__ == mod.__name__
    ]
    for c in classes:
        c.model_config["extra"] = "forbid"
    for c in classes:
        c.model_rebuild(force=True)
    return mod.NvueConfig


def errors(release: str, tree: Any) -> list[str]:
    """'path: message' of each schema error of one ``set`` tree (empty: the release's schema takes it)."""
    try:
        model(release).model_validate(tree)
    except ValidationError as e:
        return [".".join(str(p) for p in err["loc"]) + ": " + err["msg"] for err in e.errors()]
    return []


def patch_errors(release: str, patch: Any) -> list[str]:
    """Schema errors of a whole ``nv config patch`` document (a list of ``set:`` items)."""
    assert isinstance(patch, list) and patch, "an NVUE patch is a non-empty list of set/unset items"
    out = []
    for item in patch:
        assert isinstance(item, dict) and set(item) == {"set"}, f"roceconf renders only set items: {item!r:.80}"
        out += errors(release, item["set"])
    return out
