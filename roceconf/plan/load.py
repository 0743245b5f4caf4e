"""The two intents a plan compares: files, or revisions read from git."""

from __future__ import annotations

import dataclasses
import posixpath
import subprocess
import tempfile
from pathlib import Path

from roceconf.diagnostics import DiagnosticError
from roceconf.intent import Fabric, load
from roceconf.plan.model import PlanError
from roceconf.resources import MissingResource


# ------------------------------------------------------------------------------------------- loading
def read_intent(spec: str, cwd: str | Path | None = None) -> Fabric:
    """Load one side: a file path, or ``REV:PATH`` read with ``git show`` in the current repository.

    For ``REV:PATH`` the cabling tables the intent names (``links: - csv: FILE``) are read from the same
    revision, so the revision is planned as it was committed.
    """
    base = Path(cwd) if cwd is not None else Path.cwd()
    p = Path(spec) if Path(spec).is_absolute() else base / spec
    try:
        if p.is_file():
            return load(p if cwd is not None else spec)
        if ":" not in spec:
            raise PlanError([f"error: {spec}: no such file (and not a REV:PATH git revision)"])
        rev, _, path = spec.partition(":")
        if not rev or not path:
            raise PlanError([f"error: {spec}: expected REV:PATH, e.g. main:inventories/pod/intent.yml"])
        return _load_revision(spec, rev, path, base)
    except DiagnosticError as e:
        msgs = [d.format() for d in e.diagnostics]
        raise PlanError([*msgs, f"error: {spec}: cannot be loaded ({len(msgs)} error(s))"]) from None
    except MissingResource:  # roceconf's own files are missing: not a problem of this intent (exit 2)
        raise
    except OSError as e:
        raise PlanError([f"error: {spec}: {e.strerror or e}"]) from None


def _git_show(rev: str, path: str, cwd: Path) -> str:
    try:
        res = subprocess.run(
            ["git", "show", f"{rev}:{path}"], cwd=cwd, capture_output=True, text=True, check=False
        )
    except OSError as e:
        raise PlanError([f"error: cannot run git: {e.strerror or e}"]) from None
    if res.returncode != 0:
        why = res.stderr.strip().splitlines()
        raise PlanError([f"error: {rev}:{path}: {why[-1] if why else 'git show failed'}"])
    return res.stdout


def _csv_tables(text: str) -> list[str]:
    from ruamel.yaml import YAML

    try:
        data = YAML(typ="safe", pure=True).load(text)
    except Exception:  # noqa: BLE001 - the loader reports YAML errors with positions
        return []
    links = data.get("links") if isinstance(data, dict) else None
    return [lk["csv"] for lk in links or [] if isinstance(lk, dict) and isinstance(lk.get("csv"), str)]


def _load_revision(spec: str, rev: str, path: str, cwd: Path) -> Fabric:
    text = _git_show(rev, path, cwd)
    with tempfile.TemporaryDirectory(prefix="roceconf-plan-") as tmp:
        root = Path(tmp)
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        for rel in _csv_tables(text):
            if posixpath.isabs(rel):
                continue
            repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(path), rel))
            if repo_path.startswith(".."):
                continue
            try:
                content = _git_show(rev, repo_path, cwd)
            except PlanError:
                continue  # the loader reports the missing table (RC012)
            (root / repo_path).parent.mkdir(parents=True, exist_ok=True)
            (root / repo_path).write_text(content, encoding="utf-8")

        def label(file: str) -> str:
            if file == str(target):
                return spec
            try:
                return f"{rev}:{Path(file).relative_to(root).as_posix()}"
            except ValueError:
                return file

        try:
            fab = load(target)
        except DiagnosticError as e:
            raise DiagnosticError(
                [dataclasses.replace(d, file=label(d.file)) for d in e.diagnostics]
            ) from None
    fab.file = spec
    fab.diagnostics = [dataclasses.replace(d, file=label(d.file)) for d in fab.diagnostics]
    return fab
