"""`roceconf acceptance plan|verdict|record` and `roceconf bom`: thin shells over roceconf.acceptance.

``register(main, ...)`` adds them to the `roceconf` group with the CLI's shared option helpers (passed in, so
this module never imports roceconf.cli, which also runs as ``python -m roceconf.cli``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from roceconf import cli_slices
from roceconf.cli_slices import slice_options
from roceconf.diagnostics import BadInput

EXIT_INVALID = 2


def _fail(message: str) -> NoReturn:
    """Bad input: raised for the command's guard (roceconf.clierrors.guarded), which prints it in one line, exit 2."""
    raise BadInput(message)


#: deepest results directory read (a results tree is a few levels; a deeper one is refused, never recursed)
MAX_RESULTS_DEPTH = 64


def _walk_files(top: Path) -> list[Path]:
    """Every regular file under TOP, without recursion (a directory deeper than MAX_RESULTS_DEPTH is refused)."""
    files: list[Path] = []
    stack = [(top, 0)]
    while stack:
        d, depth = stack.pop()
        if depth > MAX_RESULTS_DEPTH:
            _fail(f"{top}: results nested deeper than {MAX_RESULTS_DEPTH} directories")
        for entry in sorted(d.iterdir()):
            if entry.is_dir() and not entry.is_symlink():
                stack.append((entry, depth + 1))
            elif entry.is_file():
                files.append(entry)
    return sorted(files)


def register(
    main: click.Group,
    *,
    guarded: Callable[..., Any],
    format_option: Callable[[str], Callable[..., Any]],
    output_option: Callable[[str], Callable[..., Any]],
    emit: Callable[..., None],
) -> None:
    """Add `acceptance` and `bom` to the `roceconf` command group."""
    acceptance, bom = _build(guarded, format_option, output_option, emit)
    main.add_command(acceptance)
    main.add_command(bom)


def _build(guarded: Any, _format_option: Any, _output_option: Any, _emit: Any) -> tuple[click.Group, click.Command]:


    @click.group()
    def acceptance() -> None:
        """The acceptance test of the fabric: a plan from the intent, a verdict on its results, a baseline."""


    @acceptance.command("plan")
    @click.argument("intent", type=click.Path(dir_okay=False))
    @click.option("--hosts", default=None, help="Only hosts whose name matches this glob (e.g. 'gpu00[1-4]*').")
    @_format_option("acceptance plan")
    @_output_option("plan")
    @click.option(
        "--launcher", type=click.Choice(["mpirun", "slurm"]), default="mpirun", show_default=True,
        help="How the shell form starts nccl-tests.",
    )
    @click.option("--gpus-per-node", type=click.IntRange(1, 64), default=None, help="Ranks per node (default: NICs).")
    @click.option("--perftest-share", type=click.FloatRange(0.01, 1.0), default=0.90, show_default=True,
                  help="perftest pass mark: share of the NIC line rate.")
    @click.option("--nccl-share", type=click.FloatRange(0.01, 1.0), default=None,
                  help="nccl-tests pass mark for every collective: share of the line-rate bound (default per collective).")
    @guarded
    def plan_cmd(
        intent: str,
        hosts: str | None,
        fmt: str | None,
        output: str | None,
        launcher: str,
        gpus_per_node: int | None,
        perftest_share: float,
        nccl_share: float | None,
    ) -> None:
        """The acceptance test plan for INTENT (perftest per rail and across the spine, nccl-tests collectives)."""
        from roceconf.acceptance import script
        from roceconf.acceptance.plan import COLLECTIVES, Thresholds, build_plan
        from roceconf.compile import load_valid
        from roceconf.reports import resolve_format, to_data

        fmt = resolve_format("acceptance plan", fmt)
        th = Thresholds(perftest_share=perftest_share)
        if nccl_share is not None:
            th = Thresholds(perftest_share=perftest_share, nccl_share=dict.fromkeys(COLLECTIVES, nccl_share))
        p = build_plan(load_valid(intent), hosts=hosts, thresholds=th, gpus_per_node=gpus_per_node, launcher=launcher)
        if fmt in ("json", "yaml"):
            text = to_data(p.to_dict(), fmt)
        else:
            text = {"text": script.text, "markdown": script.markdown, "shell": script.shell}[fmt](p)
        _emit(text, output)


    def _expand(paths: tuple[str, ...]) -> list[Path]:
        files: list[Path] = []
        for p in map(Path, paths):
            if p.is_dir():
                files += _walk_files(p)
            elif p.is_file():
                files.append(p)
            elif os.path.lexists(p):  # a FIFO or a device: never read (roceconf.inputfile)
                from roceconf.inputfile import InputFileError, check_file

                try:
                    check_file(p, 1)
                except InputFileError as e:
                    _fail(str(e))
            else:
                _fail(f"{p}: no such file or directory")
        if not files:
            _fail("no result files given")
        return files


    @acceptance.command("verdict")
    @click.argument("results", nargs=-1, required=True, type=click.Path())
    @click.option("--plan", "plan_file", type=click.Path(dir_okay=False), help="The plan (acceptance plan --format json).")
    @_format_option("acceptance verdict")
    @_output_option("verdict")
    @guarded
    def verdict_cmd(results: tuple[str, ...], plan_file: str | None, fmt: str | None, output: str | None) -> None:
        """Judge nccl-tests / perftest outputs (files or directories). Exit 0 pass, 1 fail, 2 invalid input."""
        from roceconf.acceptance.plan import AcceptancePlan
        from roceconf.acceptance.report import FORMATS
        from roceconf.acceptance.verdict import judge
        from roceconf.reports import resolve_format, to_data

        fmt = resolve_format("acceptance verdict", fmt)
        plan = None
        if plan_file:
            from roceconf.acceptance.bom import BaselineError, load_json

            try:
                plan = AcceptancePlan.from_dict(load_json(plan_file, "acceptance plan"))
            except BaselineError as e:
                _fail(str(e))
            except KeyError as e:
                _fail(f"{plan_file}: {e.args[0]}: missing; not an acceptance plan (write it with `roceconf acceptance plan --format json`)")
            except (AttributeError, TypeError, ValueError) as e:
                _fail(f"{plan_file}: not an acceptance plan (write it with `roceconf acceptance plan --format json`): {str(e)[:160]}")
        v = judge(list(_expand(results)), plan)
        text = to_data(v.to_dict(), "yaml") if fmt == "yaml" else FORMATS[fmt](v)
        _emit(text, output)
        sys.exit(v.exit_code)


    @acceptance.command("record")
    @click.argument("verdict", type=click.Path(dir_okay=False))
    @click.option("--bom", "bom_file", required=True, type=click.Path(dir_okay=False), help="BOM (roceconf bom).")
    @click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Baseline file to write.")
    @click.option("--force", is_flag=True, help="Record even a failed verdict or a BOM with unread devices.")
    @guarded
    def record_cmd(verdict: str, bom_file: str, output: str, force: bool) -> None:
        """Store an accepted verdict with the bill of materials it was measured on."""
        from roceconf.acceptance.bom import BaselineError, load_json, record

        try:
            base = record(load_json(verdict, "verdict"), load_json(bom_file, "BOM"), force=force, files=(verdict, bom_file))
        except BaselineError as e:
            _fail(str(e))
        from roceconf.reports.escape import dumps

        _emit(dumps(base, indent=2) + "\n", output)


    @click.command("bom")
    @click.argument("intent", type=click.Path(dir_okay=False))
    @click.option("--inventory", required=True, type=click.Path(), help="Ansible inventory of the devices.")
    @click.option("--device", default=None, help="One device only.")
    @_format_option("bom")
    @_output_option("bill of materials")
    @click.option("--workers", type=click.IntRange(1, 256), default=8, show_default=True)
    @click.option("--timeout", type=click.FloatRange(0.1, 600), default=10.0, show_default=True)
    @slice_options
    @guarded
    def bom(intent: str, inventory: str, device: str | None, fmt: str | None, output: str | None, workers: int,
            timeout: float, slice_spec: str | None = None, results_dir: str | None = None) -> None:
        """Bill of materials of every device (model, OS, NIC firmware, drivers, NCCL/CUDA, config hash).
        Exit 0, 2 invalid input, 3 some device could not be read."""
        from roceconf.acceptance.bom import bom_text, collect
        from roceconf.compile import load_valid
        from roceconf.drift.collect import CollectError
        from roceconf.reports import resolve_format, to_data

        fmt = resolve_format("bom", fmt)
        fab = load_valid(intent)
        if device is not None and device not in fab.devices:
            _fail(f"no device named '{device}' in the intent")
        sliced = cli_slices.choose(fab, slice_spec, results_dir, inventory, device)
        try:
            data = collect(fab, inventory, workers=workers, timeout=timeout,
                           device=sliced.devices if sliced is not None else device)
        except CollectError as e:
            _fail(str(e))
        if sliced is not None:
            cli_slices.save(sliced, "bom", to_data(data, "json"))
        text = bom_text(data) if fmt == "text" else to_data(data, fmt)
        _emit(text, output)
        sys.exit(3 if any(d["status"] != "read" for d in data["devices"].values()) else 0)

    return acceptance, bom


__all__ = ["register"]
