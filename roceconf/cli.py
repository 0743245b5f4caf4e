"""The `roceconf` command line: a thin shell over the library functions.

Exit codes: 0 ok, 1 findings (drift, stale render, changes), 2 invalid input, 3 some device could not be audited.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from roceconf import about, cli_slices
from roceconf.cli_common import (
    EXIT_FINDINGS,
    EXIT_INVALID,
    EXIT_OK,
    _color,
    _emit,
    _format_option,
    _Group,
    _output_option,
    _progress,
    bad_input,
    echo_diagnostics,
    error,
    guarded,
    os_error_text,
)
from roceconf.cli_slices import slice_options
from roceconf.gcpolicy import batch_command
from roceconf.reports import escape


@click.group(
    cls=_Group,
    context_settings={
        "help_option_names": ["-h", "--help"],
        "max_content_width": 100,
        "auto_envvar_prefix": "ROCECONF",
    },
    epilog="Every option can also be set as ROCECONF_<COMMAND>_<OPTION> (ROCECONF_DRIFT_WORKERS=16; shared "
    "options ROCECONF_<OPTION>) or in roceconf.toml / [tool.roceconf] in pyproject.toml: see docs/cli.md.",
)
@about.version_option()
@click.option("-v", "--verbose", count=True, help="More detail on stderr (-v per-device steps, -vv debug).")
@click.option("--debug", is_flag=True, help="Debug logs, also of the device client libraries (scrubbed).")
@click.option(
    "--session-log",
    type=click.Path(file_okay=False),
    help="Write a log of this run (commands and timings per device, secrets scrubbed) into DIR.",
)
@click.option(
    "--config",
    "config_file",
    envvar="ROCECONF_CONFIG",
    type=click.Path(dir_okay=False),
    help="Settings file [default: ./roceconf.toml, or [tool.roceconf] in ./pyproject.toml].",
)
@click.pass_context
def main(
    ctx: click.Context, verbose: int, debug: bool, session_log: str | None, config_file: str | None
) -> None:
    """roceconf: compile a lossless RoCEv2 intent into switch and NIC configs, and audit drift."""
    from roceconf import __version__, cliconfig
    from roceconf.sessionlog import Session

    settings = None
    try:
        path = config_file or cliconfig.find()
        if path is not None:
            table, settings = cliconfig.read(path)
            shared, ctx.default_map = cliconfig.default_map(main, table, settings)
            src = click.core.ParameterSource
            verbose = (
                verbose if ctx.get_parameter_source("verbose") != src.DEFAULT else shared.get("verbose", 0)
            )
            debug = debug if ctx.get_parameter_source("debug") != src.DEFAULT else bool(shared.get("debug"))
            if ctx.get_parameter_source("session_log") == src.DEFAULT:
                session_log = shared.get("session_log")
    except cliconfig.ConfigError as e:
        bad_input(str(e))
    try:
        session = Session().start(verbose, debug, session_log, command=ctx.invoked_subcommand or "run")
    except OSError as e:
        bad_input(os_error_text(e, "--session-log:"))
    ctx.obj = {"session": session, "debug": debug, "settings": settings}
    session.header(sys.argv[1:], __version__)


# ----------------------------------------------------------------------------------------- validate
@main.command()
@click.argument("intents", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@_format_option("validate")
@_output_option()
@guarded
@batch_command
def validate(intents: tuple[str, ...], strict: bool, fmt: str | None, output: str | None) -> None:
    """Check intent files: schema and RDMA rules. Exit 0 valid, 2 invalid."""
    from roceconf.findings import format_validate, validate_files
    from roceconf.reports import resolve_format

    results = validate_files(intents, strict=strict)
    _emit(format_validate(results, resolve_format("validate", fmt), strict=strict), output)
    sys.exit(EXIT_OK if all(r.valid for r in results) else EXIT_INVALID)


# ----------------------------------------------------------------------------------------- schema/docs
@main.command()
@click.option(
    "-o", "--output", "out_dir", default="schemas", show_default=True, type=click.Path(file_okay=False)
)
@guarded
def schema(out_dir: str) -> None:
    """Write the JSON Schemas (intent, device state, drift report, plan)."""
    from roceconf.docgen import write_schemas

    for p in write_schemas(out_dir):
        click.echo(str(p))


@main.command()
@click.option(
    "-o", "--output", "out_dir", default="docs", show_default=True, type=click.Path(file_okay=False)
)
@guarded
def docs(out_dir: str) -> None:
    """Regenerate docs/intent.md and docs/rules.md from the code."""
    from roceconf.docgen import write_docs

    for p in write_docs(out_dir):
        click.echo(str(p))


# ----------------------------------------------------------------------------------------- expand
@main.command()
@click.argument("intent", type=click.Path(dir_okay=False))
@_format_option("expand")
@_output_option("resolved intent")
@guarded
@batch_command
def expand(intent: str, fmt: str | None, output: str | None) -> None:
    """Print the expanded intent, itself a valid intent: every range and link expanded (YAML: effective
    settings with every default as comments)."""
    from roceconf.compile import expanded_text, load_valid
    from roceconf.reports import resolve_format

    _emit(expanded_text(load_valid(intent), resolve_format("expand", fmt)), output)


# ----------------------------------------------------------------------------------------- render
@main.command()
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option(
    "-o", "--output", "out_dir", required=True, type=click.Path(file_okay=False), help="Output directory."
)
@click.option("--device", default=None, help="Render one device only.")
@click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 if any file is missing, stale or unexpected."
)
@click.option(
    "--prune", is_flag=True, help="Also remove config files in DIR that no device of the intent renders."
)
@guarded
@batch_command
def render(intent: str, out_dir: str, device: str | None, check: bool, prune: bool) -> None:
    """Render one config file per device into DIR (DIR/<device>.<ext>), atomically and deterministically.

    The whole directory changes at once (a reader never sees a mix of two renders); files of devices
    removed from the intent are removed (any other stale config file with --prune)."""
    from roceconf.compile import check_outputs, load_valid, render_fabric, write_render

    if prune and device is not None:
        click.echo("error: --prune needs a render of every device (no --device)", err=True)
        sys.exit(EXIT_INVALID)
    fab = load_valid(intent)
    # warnings (e.g. RC150: a value the platform cannot carry) are shown, never swallowed
    echo_diagnostics([d for d in fab.diagnostics if d.severity == "warning"], err=True)
    files = render_fabric(fab, device)
    if check:
        res = check_outputs(files, out_dir, all_devices=device is None)
        for kind in ("missing", "stale", "unexpected"):
            for name in getattr(res, kind):
                click.echo(f"{kind}: {Path(out_dir) / name}")
        if res.ok:
            click.echo(f"{len(res.current)} file(s) current")
            sys.exit(EXIT_OK)
        click.echo(res.advice(intent, out_dir), err=True)
        sys.exit(EXIT_FINDINGS)
    res = write_render(files, out_dir, complete=device is None, prune=prune)
    click.echo(f"rendered {len(files)} device(s) into {out_dir}: {len(res.changed)} changed")
    for name in res.changed:
        click.echo(f"  changed: {name}")
    for name in res.removed:
        click.echo(f"  removed: {name}")


# ----------------------------------------------------------------------------------------- parse
@main.command()
@click.option("--platform", "platform_name", required=True, help="Platform of the config.")
@click.argument("file", type=click.Path(dir_okay=False))
@_format_option("parse")
@_output_option("device state")
@guarded
def parse(platform_name: str, file: str, fmt: str | None, output: str | None) -> None:
    """Parse a running config (or NIC read-back) into the vendor-neutral device state."""
    from roceconf import platforms

    if platform_name not in platforms.NAMES:
        click.echo(
            f"error: unknown platform '{platform_name}' (known: {', '.join(platforms.NAMES)})", err=True
        )
        sys.exit(EXIT_INVALID)
    from roceconf.inputfile import InputFileError, read_text
    from roceconf.limits import MAX_CONFIG_BYTES

    try:
        text = read_text(file, MAX_CONFIG_BYTES, errors="replace", encoding="utf-8")
    except InputFileError as e:
        click.echo(f"{file}:{e.line}:1: error[{e.code}]: {e.reason}", err=True)
        sys.exit(EXIT_INVALID)
    from roceconf.reports import resolve_format, to_data

    state = platforms.get(platform_name).parse(text)
    _emit(to_data(state.model_dump(mode="json"), resolve_format("parse", fmt)), output)
    for w in state.warnings:
        click.echo(escape.plain(f"{file}:{w.line or 0}: warning[{w.code}]: {w.message}"), err=True)


# ----------------------------------------------------------------------------------------- drift
@main.command()
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option(
    "--inventory", type=click.Path(), help="Ansible inventory of live devices (address, port, platform)."
)
@click.option(
    "--configs", type=click.Path(file_okay=False), help="Directory of saved configs: DIR/<device>.<ext>."
)
@click.option("--device", default=None, help="Audit one device only.")
@_format_option("drift")
@_output_option()
@click.option("--workers", type=click.IntRange(1, 256), default=8, show_default=True)
@click.option(
    "--timeout",
    type=click.FloatRange(0.1, 600),
    default=10.0,
    show_default=True,
    help="Per-device connect/read timeout, seconds.",
)
@click.option("--retries", type=click.IntRange(0, 10), default=2, show_default=True)
@click.option(
    "--save-configs",
    type=click.Path(file_okay=False),
    help="Also save what was read from each device into DIR/<device>.<ext> (a baseline for --configs).",
)
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False),
    help="Acceptance baseline (acceptance record): report every BOM or config change since the accepted test.",
)
@click.option(
    "--ca-file",
    type=click.Path(dir_okay=False, exists=True),
    help="CA bundle for the eAPI HTTPS certificates (overrides ansible_httpapi_ca_path).",
)
@click.option(
    "--no-verify-tls",
    "no_verify_tls",
    is_flag=True,
    help="Do not verify eAPI HTTPS certificates (overrides ansible_httpapi_validate_certs; verified by default).",
)
@slice_options
@guarded
def drift(
    intent: str,
    inventory: str | None,
    configs: str | None,
    device: str | None,
    fmt: str | None,
    output: str | None,
    workers: int,
    timeout: float,
    retries: int,
    save_configs: str | None,
    baseline: str | None,
    ca_file: str | None = None,
    no_verify_tls: bool = False,
    slice_spec: str | None = None,
    results_dir: str | None = None,
) -> None:
    """Audit devices against the intent. Exit 0 in sync, 1 drift (or a stale acceptance baseline), 2 invalid
    input, 3 some device unknown (or none audited)."""
    from roceconf.compile import load_valid
    from roceconf.drift.audit import audit
    from roceconf.drift.collect import CollectError
    from roceconf.reports import resolve_format

    fmt = resolve_format("drift", fmt)
    if (inventory is None) == (configs is None):
        bad_input("give exactly one of --inventory FILE or --configs DIR")
    if save_configs is not None and configs is not None:
        bad_input("--save-configs saves what is read from live devices (--inventory); with --configs nothing is read")
    fab = load_valid(intent)
    sliced = cli_slices.choose(fab, slice_spec, results_dir, inventory, device)
    if sliced is not None and baseline is not None:
        click.echo("error: --baseline is checked on the merged report, not per slice", err=True)
        sys.exit(EXIT_INVALID)
    accepted = None
    if baseline is not None:
        from roceconf.acceptance.bom import BaselineError, load_baseline

        try:
            accepted = load_baseline(baseline)
        except BaselineError as e:
            error(e)
            sys.exit(EXIT_INVALID)
    try:
        with _progress() as progress:
            report = audit(
                fab,
                inventory=inventory,
                configs=configs,
                device=sliced.devices if sliced is not None else device,
                workers=workers,
                timeout=timeout,
                retries=retries,
                progress=progress,
                save_dir=save_configs,
                ca_file=ca_file,
                verify_tls=False if no_verify_tls else None,
            )
        if accepted is not None:
            from roceconf.acceptance.bom import check_baseline

            report.baseline = check_baseline(
                fab, accepted, baseline or "", inventory=inventory, workers=workers, timeout=timeout
            )
    except CollectError as e:
        error(e)
        sys.exit(EXIT_INVALID)
    if sliced is not None:
        from roceconf.drift.report import to_json

        cli_slices.save(sliced, "drift", to_json(report))
    color = output is None and fmt == "text" and _color()
    _emit(cli_slices.drift_text(report, fab, fmt, color), output, color and fmt != "html")
    sys.exit(report.exit_code)


# ----------------------------------------------------------------------------------------- health
@main.command()
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option("--inventory", type=click.Path(), help="Ansible inventory of live devices (as for drift).")
@click.option(
    "--counters",
    "counters_dir",
    type=click.Path(file_okay=False),
    help="Saved counters: DIR/<device>.counters.json.",
)
@click.option(
    "--interval",
    type=click.FloatRange(0, 3600),
    default=10.0,
    show_default=True,
    help="Seconds between samples.",
)
@click.option(
    "--samples", type=click.IntRange(2, 1000), default=2, show_default=True, help="Reads per device (>= 2)."
)
@click.option("--device", default=None, help="Read one device only.")
@_format_option("health")
@_output_option()
@click.option("--workers", type=click.IntRange(1, 256), default=8, show_default=True)
@click.option("--timeout", type=click.FloatRange(0.1, 600), default=10.0, show_default=True)
@click.option("--retries", type=click.IntRange(0, 10), default=2, show_default=True)
@click.option(
    "--save-counters",
    type=click.Path(file_okay=False),
    help="Also save every sample's raw outputs (for --counters).",
)
@click.option(
    "--serve", "serve_port", type=click.IntRange(0, 65535), help="Expose the evaluation on PORT/metrics."
)
@click.option("--serve-address", default="127.0.0.1", show_default=True, help="Address --serve listens on.")
@click.option(
    "--serve-for",
    type=click.FloatRange(0, 86400),
    default=60.0,
    show_default=True,
    help="Seconds --serve answers, then exit.",
)
@slice_options
@guarded
def health(
    intent: str,
    inventory: str | None,
    counters_dir: str | None,
    interval: float,
    samples: int,
    device: str | None,
    fmt: str | None,
    output: str | None,
    workers: int,
    timeout: float,
    retries: int,
    save_counters: str | None,
    serve_port: int | None,
    serve_address: str,
    serve_for: float,
    slice_spec: str | None = None,
    results_dir: str | None = None,
) -> None:
    """Fabric health from counters: read every device twice or more INTERVAL apart and evaluate the rates
    per port and priority against the intent (RC3xx, docs/health.md).

    Exit 0 healthy, 1 findings, 2 invalid input, 3 some device could not be read (or none was judged)."""
    from roceconf.compile import load_valid
    from roceconf.drift.collect import CollectError
    from roceconf.health.collect import health_live, health_offline, plain_progress
    from roceconf.reports import resolve_format

    fmt = resolve_format("health", fmt)
    if (inventory is None) == (counters_dir is None):
        click.echo("error: give exactly one of --inventory FILE or --counters DIR", err=True)
        sys.exit(EXIT_INVALID)
    fab = load_valid(intent)
    sliced = cli_slices.choose(fab, slice_spec, results_dir, inventory, device)
    if sliced is not None and save_counters is not None:
        click.echo("error: a slice keeps its counters in its --results-dir; drop --save-counters", err=True)
        sys.exit(EXIT_INVALID)
    chosen: str | list[str] | None = sliced.devices if sliced is not None else device
    try:
        if counters_dir is not None:
            report = health_offline(fab, counters_dir, device=chosen, workers=workers)
        else:
            report = health_live(
                fab,
                inventory,  # type: ignore[arg-type]
                samples=samples,
                interval=interval,
                device=chosen,
                workers=workers,
                timeout=timeout,
                retries=retries,
                save_dir=sliced.folder / "counters" if sliced is not None else save_counters,
                progress=plain_progress(),
            )
    except CollectError as e:
        error(e)
        sys.exit(EXIT_INVALID)
    if sliced is not None:
        from roceconf.health.report import to_json

        if counters_dir is not None:  # the slice's directory carries the counters it evaluated
            cli_slices.copy_counters(sliced, counters_dir, report)
        cli_slices.save(sliced, "health", to_json(report))
    color = output is None and fmt == "text" and _color()
    if output or serve_port is None:
        _emit(cli_slices.health_text(report, fab, fmt, color), output, color and fmt != "html")
    if serve_port is not None:
        from roceconf.health.prometheus import serve

        def announce(port: int) -> None:
            click.echo(f"serving http://{serve_address}:{port}/metrics for {serve_for:g} s", err=True)

        serve(report, serve_port, serve_address, serve_for, announce)
    sys.exit(report.exit_code)


@main.command()
@click.option(
    "--intent",
    default=None,
    type=click.Path(dir_okay=False),
    help="Intent to run [default: the lab fabric shipped with roceconf, inventories/lab/intent.yml].",
)
@click.option(
    "-o", "--output", "out_dir", default="out/demo", show_default=True, type=click.Path(file_okay=False)
)
@_format_option("demo")
@guarded
def demo(intent: str | None, out_dir: str, fmt: str | None) -> None:
    """Quick start: render the lab fabric, start the loopback lab, inject faults, audit drift live."""
    from roceconf.demo import run_demo
    from roceconf.drift.report import FORMATS, format_report
    from roceconf.reports import resolve_format
    from roceconf.resources import example_intent

    intent = intent or str(example_intent())
    fmt = resolve_format("demo", fmt)
    report, out = run_demo(intent, out_dir, say=lambda m: click.echo(m, err=True))
    from roceconf.compile import load_valid
    from roceconf.outdir import write_outputs
    from roceconf.reports import html

    kinds = (("report.json", "json"), ("report.xml", "junit"), ("report.md", "markdown"))
    reports = {name: FORMATS[f](report) for name, f in kinds}
    reports["report.html"] = html.render(html.drift_map(report, load_valid(intent)))
    write_outputs(reports, out)  # atomically, never through a link planted in DIR
    color = fmt == "text" and _color()
    click.echo(format_report(report, fmt, color=color), nl=False, color=color or None)
    from roceconf.demo import FAULTS

    faulty = {d for d, _w, _f in FAULTS}
    drifted = {d.device for d in report.devices if d.status == "drift"}
    caught = (
        drifted == faulty
        and all(any(i.severity == "critical" for i in d.items) for d in report.devices if d.device in faulty)
        and not any(d.status == "unknown" for d in report.devices)
    )
    click.echo(
        f"reports written to {out}/report.{{json,xml,md}}; `roceconf drift` would exit {report.exit_code} (1 = drift found)",
        err=True,
    )
    if caught:
        click.echo(
            f"demo OK: all {len(faulty)} injected faults found as critical drift, every other device in sync",
            err=True,
        )
        sys.exit(EXIT_OK)
    click.echo(f"demo FAILED: drifted {sorted(drifted)}, expected {sorted(faulty)}", err=True)
    sys.exit(EXIT_FINDINGS)


@main.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.pass_context
def lab(ctx: click.Context) -> None:
    """Run the loopback lab of simulated devices on 127.0.0.1 (see docs/lab.md).

    Same options as `python -m roceconf.lab`: --configs DIR --inventory-out FILE [--ttl SECONDS]
    [--platform NAME=PLATFORM] [--fault NAME=FAULT] [--scenario NAME[@DEVICE[:PORT]]]; credentials from
    ROCECONF_USERNAME / ROCECONF_PASSWORD.
    """
    from roceconf.lab.__main__ import main as lab_main

    sys.exit(lab_main(list(ctx.args)))


# ----------------------------------------------------------------------------------------- plan
@main.command()
@click.argument("old")
@click.argument("new")
@_format_option("plan")
@click.option(
    "--detailed-exitcode", is_flag=True, help="Exit 0 no changes, 1 error, 2 changes (as terraform)."
)
@_output_option("plan")
@guarded
@batch_command
def plan(old: str, new: str, fmt: str | None, detailed_exitcode: bool, output: str | None) -> None:
    """Show what changing the intent from OLD to NEW does to the fabric, grouped by intent object.

    OLD and NEW are intent files or git revisions with a path (main:inventories/pod/intent.yml).
    Exit 2 on invalid input (a side that cannot be read, OLD not expandable in full; 1 with
    --detailed-exitcode), 1 when NEW has validation errors (unsafe); otherwise 0 (with --detailed-exitcode:
    0 no changes, 2 changes).
    """
    from roceconf.findings import format_plan
    from roceconf.plan import PlanError, plan_specs
    from roceconf.reports import resolve_format

    fmt = resolve_format("plan", fmt)
    try:
        result = plan_specs(old, new)
    except PlanError as e:
        for line in e.messages:
            click.echo(line, err=True)
        # invalid input is exit 2 as for every command; with --detailed-exitcode 2 means "changes" (as
        # terraform), so there an error stays 1
        sys.exit(1 if detailed_exitcode else EXIT_INVALID)
    color = output is None and fmt == "text" and _color()
    if fmt == "html":
        from roceconf.plan import read_intent
        from roceconf.reports import html

        text = html.render(html.plan_map(result, read_intent(new)))
    else:
        text = format_plan(result, fmt, color=color)
        if fmt == "markdown":
            from roceconf.plan import read_intent
            from roceconf.reports import html

            text += html.mermaid_block(html.plan_map(result, read_intent(new)))
    try:
        _emit(text, output, color)
    except OSError as e:
        click.echo(f"error: {output}: {e.strerror or e}", err=True)
        sys.exit(1 if detailed_exitcode else EXIT_INVALID)
    sys.exit(result.exit_code(detailed_exitcode))


# ----------------------------------------------------------------------------------------- fabric checks
def _asic_table_option(path: str | None) -> dict[str, Any] | None:
    if path is None:
        return None
    from roceconf.intent.guards import load_asic_table

    return load_asic_table(path)


@main.command("check")
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option("--configs", type=click.Path(file_okay=False), help="Check saved configs DIR/<device>.<ext>.")
@click.option("--inventory", type=click.Path(), help="Live devices (Ansible inventory).")
@_format_option("check")
@_output_option()
@click.option("--asic-table", type=click.Path(dir_okay=False), help="YAML of extra ASIC buffer facts.")
@click.option("--workers", type=click.IntRange(1, 256), default=8, show_default=True)
@click.option("--timeout", type=click.FloatRange(0.1, 600), default=10.0, show_default=True)
@click.option("--retries", type=click.IntRange(0, 10), default=2, show_default=True)
@guarded
@batch_command
def check_cmd(
    intent: str,
    configs: str | None,
    inventory: str | None,
    fmt: str | None,
    output: str | None,
    asic_table: str | None,
    workers: int,
    timeout: float,
    retries: int,
) -> None:
    """Fabric-wide checks: lossless path end to end, headroom budget, hashing (RC2xx).

    Runs on the intent's desired states, or on actual states from --configs DIR or --inventory FILE.
    Exit 0 clean, 1 findings, 2 invalid input, 3 some device could not be read.
    """
    from roceconf.compile import load_valid
    from roceconf.fabric import desired, from_configs, from_inventory, run_checks
    from roceconf.findings import format_check
    from roceconf.reports import resolve_format

    if configs is not None and inventory is not None:
        click.echo("error: give at most one of --configs DIR or --inventory FILE", err=True)
        sys.exit(EXIT_INVALID)
    table = _asic_table_option(asic_table)
    fab = load_valid(intent)
    if configs is not None:
        if not Path(configs).is_dir():
            click.echo(f"error: {configs}: not a directory", err=True)
            sys.exit(EXIT_INVALID)
        ss = from_configs(fab, configs)
    elif inventory is not None:
        from roceconf.drift.collect import CollectError

        try:
            with _progress() as progress:
                ss = from_inventory(
                    fab, inventory, workers=workers, timeout=timeout, retries=retries, progress=progress
                )
        except CollectError as e:
            error(e)
            sys.exit(EXIT_INVALID)
    else:
        ss = desired(fab)
    result = run_checks(fab, ss, table=table)
    fmt = resolve_format("check", fmt)
    if fmt == "html":
        from roceconf.reports import html

        _emit(html.render(html.check_map(result, fab)), output)
    else:
        _emit(format_check(result, fmt), output)
    sys.exit(result.exit_code)


@main.command("headroom")
@click.argument("intent", type=click.Path(dir_okay=False))
@_format_option("headroom")
@_output_option("table")
@click.option("--asic-table", type=click.Path(dir_okay=False), help="YAML of extra ASIC buffer facts.")
@click.option(
    "--small-packet-percent",
    type=click.FloatRange(0, 100),
    default=100.0,
    show_default=True,
    help="Share of lossless bytes in small packets (SONiC LOSSLESS_TRAFFIC_PATTERN; 100 = worst case).",
)
@guarded
@batch_command
def headroom_cmd(
    intent: str, fmt: str | None, output: str | None, asic_table: str | None, small_packet_percent: float
) -> None:
    """PFC headroom per switch port and lossless priority (SONiC dynamic-headroom model) against the
    ASIC buffer. Exit 0 fits (or unknown), 1 some switch does not fit, 2 invalid input."""
    from roceconf.compile import load_valid
    from roceconf.fabric import fabric_headroom
    from roceconf.fabric.report import headroom_json, headroom_table
    from roceconf.reports import resolve_format, to_data

    table = _asic_table_option(asic_table)
    fab = load_valid(intent)
    reports = fabric_headroom(fab, table=table, small_packet_percent=small_packet_percent)
    fmt = resolve_format("headroom", fmt)
    if fmt == "text" and output is None:
        headroom_table(reports, small_packet_percent)
    elif fmt == "text":
        import io

        buf = io.StringIO()
        headroom_table(reports, small_packet_percent, file=buf)
        _emit(buf.getvalue(), output)
    else:
        _emit(to_data(headroom_json(fab, reports, small_packet_percent), fmt), output)
    sys.exit(EXIT_FINDINGS if any(r.margin is not None and r.margin < 0 for r in reports) else EXIT_OK)


# ----------------------------------------------------------------------------------------- acceptance
from roceconf.cli_acceptance import register as _register_acceptance  # noqa: E402

_register_acceptance(main, guarded=guarded, format_option=_format_option, output_option=_output_option, emit=_emit)
cli_slices.register(main, guarded=guarded, emit=_emit, color=_color)
from roceconf.cli_cabling import register as _register_cabling  # noqa: E402

_register_cabling(main)


def _name_envvars(group: click.Group) -> None:
    """ROCECONF_<COMMAND>_<OPTION> for every option, named after the long option (not the parameter):
    ROCECONF_VALIDATE_FORMAT, ROCECONF_RENDER_OUTPUT; shared options ROCECONF_<OPTION>."""
    from roceconf.cliconfig import envvar

    for p in group.params:
        if isinstance(p, click.Option) and p.expose_value and not p.envvar:
            p.envvar = envvar(None, p)
    for name, cmd in group.commands.items():
        for p in cmd.params:
            if isinstance(p, click.Option) and p.expose_value:
                p.envvar = envvar(name, p)
                p.show_envvar = True


_name_envvars(main)

if __name__ == "__main__":  # pragma: no cover
    main()
