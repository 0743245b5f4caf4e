"""SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format) for positioned findings.

``tool.driver.rules`` is the whole rule catalogue the caller passes (:func:`roceconf.findings.catalogue`, RC2xx
fabric checks included), so every ``ruleIndex`` points into one stable list and code scanning shows each rule's title, hint
and rationale. Locations are URIs relative to the working directory (``%SRCROOT%``, the repository root in
CI) with 1-based line and column, as printed in ``FILE:LINE:COL``.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from roceconf import __version__
from roceconf.diagnostics import Diagnostic
from roceconf.reports import escape, relative_uri
from roceconf.reports.causes import cause_template

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: roceconf severity -> SARIF level (SARIF 2.1.0 §3.27.10: none, note, warning, error)
LEVELS = {"error": "error", "critical": "error", "warning": "warning", "info": "note"}
SRCROOT = "%SRCROOT%"


def rule_name(title: str) -> str:
    """A SARIF ``name`` (an identifier-like PascalCase word) from a rule title."""
    words = re.findall(r"[A-Za-z0-9]+", title)
    return "".join(w[:1].upper() + w[1:] for w in words) or "Rule"


def _descriptor(r: Any) -> dict[str, Any]:
    return {
        "id": r.id,
        "name": rule_name(r.title),
        "shortDescription": {"text": r.title},
        "fullDescription": {"text": r.why[:1].upper() + r.why[1:] + "." if r.why else r.title},
        "help": {
            "text": f"{r.hint}. Why: {r.why}.",
            "markdown": f"**Fix:** {r.hint}.\n\n**Why it matters:** {r.why}.",
        },
        "defaultConfiguration": {"level": LEVELS.get(r.severity, "warning")},
        "properties": {"tags": ["roce", "lossless"]},
    }


def _fingerprint(d: Diagnostic, uri: str) -> str:
    """Stable per cause: the ports a result names and how many it groups (``causes.same_cause``) are not part
    of it, so code scanning keeps one alert while a fault spreads to more ports or is fixed on some."""
    key = "\0".join((d.code, uri, d.path or str(d.line), cause_template(d.message)))
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def to_sarif(
    diagnostics: Iterable[Diagnostic],
    *,
    base: str | Path | None = None,
    successful: bool = True,
    extra_rules: Iterable[Any] = (),
    catalog: Iterable[Any] = (),
) -> str:
    """One SARIF log with one run of roceconf. ``base`` is the directory URIs are relative to (default:
    the working directory); ``successful`` is false when the tool could not do its job (not: found errors);
    ``catalog`` is the rule catalogue (:func:`roceconf.findings.catalogue`)."""
    rules = list(catalog)
    known = {r.id for r in rules}
    rules += [r for r in extra_rules if r.id not in known]
    index = {r.id: i for i, r in enumerate(rules)}
    root = Path(base or os.getcwd()).resolve()
    results = []
    for d in diagnostics:
        uri = relative_uri(d.file, root)
        physical: dict[str, Any] = {"artifactLocation": {"uri": uri}}
        if not uri.startswith("file:"):
            physical["artifactLocation"]["uriBaseId"] = SRCROOT
        if d.line >= 1:
            physical["region"] = {"startLine": d.line, "startColumn": max(1, d.col)}
        text = d.message + (f" (hint: {d.hint})" if d.hint else "")
        res: dict[str, Any] = {
            "ruleId": d.code,
            "level": LEVELS.get(d.severity, "warning"),
            "message": {"text": text},
            "locations": [{"physicalLocation": physical}],
            "partialFingerprints": {"roceconfFinding/v1": _fingerprint(d, uri)},
        }
        if d.code in index:
            res["ruleIndex"] = index[d.code]
        if d.path:
            res["properties"] = {"intentPath": d.path}
        results.append(res)
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "roceconf",
                        "semanticVersion": __version__,
                        "version": __version__,
                        "rules": [_descriptor(r) for r in rules],
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": root.as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "invocations": [{"executionSuccessful": successful}],
                "results": results,
            }
        ],
    }
    return escape.dumps(log, indent=2) + "\n"
