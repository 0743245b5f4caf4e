"""CLI conventions: colour as rich decides it (on a real pseudo-terminal), settings from roceconf.toml /
pyproject.toml and ROCECONF_* environment variables, -v/--debug, --session-log with secrets scrubbed, shell
completion."""

from __future__ import annotations

import json
import logging
import os
import pty
import re
import secrets
import select
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from roceconf.cli import main
from roceconf.sessionlog import Session, add_secret

ROOT = Path(__file__).parent.parent
PLAN = ROOT / "tests" / "intents" / "plan"
WARNING_INTENT = ROOT / "tests" / "intents" / "broken" / "rc109_ecn_above_xoff.yml"
LAB = ROOT / "inventories" / "lab" / "intent.yml"
#: SGR parameters that set a colour: 30-39/40-49 (incl. 38;5;n / 38;2;r;g;b), 90-97, 100-107
COLOUR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m")
CMD = [sys.executable, "-c", "from roceconf.cli import main; main(prog_name='roceconf')"]


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ROCECONF_")
        and k not in ("NO_COLOR", "FORCE_COLOR", "GITHUB_ACTIONS", "TTY_COMPATIBLE")
    }
    env.update({"TERM": "xterm-256color", "COLUMNS": "120", **extra})
    return env


def _on_pty(args: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[int, str]:
    """Run the CLI with stdout and stderr on a pseudo-terminal; everything it wrote, and its exit code."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(CMD + args, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd)
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    os.close(master)
    code = proc.wait(timeout=30)
    return code, b"".join(chunks).decode("utf-8", "replace")


PLAN_ARGS = ["plan", str(PLAN / "base.yml"), str(PLAN / "ecn.yml")]


def test_no_color_on_a_terminal_prints_no_colour_codes() -> None:
    code, out = _on_pty(PLAN_ARGS, _env(NO_COLOR="1"))
    assert code == 0, out
    assert "roceconf plan" in out and "ecn" in out.lower()
    assert not COLOUR.search(out), repr(out[:400])


def test_force_color_prints_colour_codes_so_the_test_can_fail() -> None:
    code, out = _on_pty(PLAN_ARGS, _env(FORCE_COLOR="1"))
    assert code == 0
    assert COLOUR.search(out)
    # a plain terminal colours too (rich decides), a dumb one does not
    assert COLOUR.search(_on_pty(PLAN_ARGS, _env())[1])
    assert not COLOUR.search(_on_pty(PLAN_ARGS, _env(TERM="dumb"))[1])


def test_pipe_has_no_colour_unless_forced() -> None:
    plain = subprocess.run(CMD + PLAN_ARGS, env=_env(), capture_output=True, text=True, cwd=ROOT)
    assert plain.returncode == 0 and "roceconf plan" in plain.stdout
    assert not COLOUR.search(plain.stdout)
    forced = subprocess.run(
        CMD + PLAN_ARGS, env=_env(FORCE_COLOR="1"), capture_output=True, text=True, cwd=ROOT
    )
    assert COLOUR.search(forced.stdout)  # e.g. a CI log that renders colour


# ------------------------------------------------------------------------------------------ settings
def _invoke(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> click.testing.Result:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, env=env)
    finally:
        os.chdir(old)


def test_roceconf_toml_sets_command_options(tmp_path: Path) -> None:
    assert _invoke(["validate", str(WARNING_INTENT)], tmp_path).exit_code == 0
    (tmp_path / "roceconf.toml").write_text('[validate]\nstrict = true\nformat = "json"\n')
    r = _invoke(["validate", str(WARNING_INTENT)], tmp_path)
    assert r.exit_code == 2  # strict: the warning fails
    assert json.loads(r.stdout)["valid"] is False
    # the command line wins over the file
    r = _invoke(["validate", str(WARNING_INTENT), "--format", "text"], tmp_path)
    assert r.stdout.startswith(f"{WARNING_INTENT}:6:96: warning[RC109]")


def test_pyproject_tool_table_and_env_precedence(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "pod"\n\n[tool.roceconf.validate]\nformat = "json"\n'
    )
    assert json.loads(_invoke(["validate", str(WARNING_INTENT)], tmp_path).stdout)["valid"] is True
    # environment over file
    r = _invoke(["validate", str(WARNING_INTENT)], tmp_path, env={"ROCECONF_VALIDATE_FORMAT": "github"})
    assert r.stdout.startswith("::warning file=")
    r = _invoke(["validate", str(WARNING_INTENT)], tmp_path, env={"ROCECONF_VALIDATE_STRICT": "1"})
    assert r.exit_code == 2
    # a pyproject.toml without a roceconf table is not a settings file
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "pod"\n')
    assert _invoke(["validate", str(WARNING_INTENT)], tmp_path).stdout.startswith(str(WARNING_INTENT))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[validate]\nstrikt = true\n", "[validate] strikt: no such option of `roceconf validate`"),
        ("[valdate]\nstrict = true\n", "[valdate] is not a roceconf command"),
        ("workers = 3\n", "workers: not a shared option"),
        ("[validate\n", "not valid TOML"),
    ],
)
def test_bad_settings_file_is_a_one_line_error(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "roceconf.toml").write_text(text)
    r = subprocess.run(
        CMD + ["validate", str(WARNING_INTENT)], cwd=tmp_path, env=_env(), capture_output=True, text=True
    )
    assert r.returncode == 2
    assert message in r.stderr and "roceconf.toml" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_every_option_has_a_roceconf_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = 0
    for name, cmd in main.commands.items():
        ctx = click.Context(cmd, info_name=name, parent=click.Context(main, info_name="roceconf"))
        for p in cmd.params:
            if not isinstance(p, click.Option) or not p.expose_value:
                continue
            long = next(o for o in p.opts if o.startswith("--"))[2:]
            var = f"ROCECONF_{name.upper()}_{long.upper().replace('-', '_')}"
            monkeypatch.setenv(var, "x")
            assert p.resolve_envvar_value(ctx) == "x", (name, long)
            monkeypatch.delenv(var)
            seen += 1
    assert seen >= 30
    # and it really takes effect (bad value -> click's error names the option)
    r = CliRunner().invoke(main, ["drift", str(LAB), "--configs", "."], env={"ROCECONF_DRIFT_WORKERS": "0"})
    assert r.exit_code == 2 and "--workers" in r.output


def test_shell_completion_is_click_s() -> None:
    env = _env(_ROCECONF_COMPLETE="bash_source")
    script = subprocess.run(CMD, env=env, capture_output=True, text=True)
    assert "_ROCECONF_COMPLETE=bash_complete" in script.stdout
    env = _env(_ROCECONF_COMPLETE="bash_complete", COMP_WORDS="roceconf va", COMP_CWORD="1")
    words = subprocess.run(CMD, env=env, capture_output=True, text=True).stdout.split()
    assert "plain,validate" in words
    env = _env(_ROCECONF_COMPLETE="bash_complete", COMP_WORDS="roceconf drift --for", COMP_CWORD="2")
    assert "plain,--format" in subprocess.run(CMD, env=env, capture_output=True, text=True).stdout.split()


# ------------------------------------------------------------------------------------------ logging
def test_scrubbing_covers_registered_secrets_and_password_assignments(tmp_path: Path) -> None:
    secret = "S3cr3t-" + secrets.token_hex(4)
    add_secret(secret)
    s = Session().start(log_dir=tmp_path, command="unit")
    lg = logging.getLogger("roceconf.collect")
    lg.info("login with %s", secret)
    lg.info('payload {"password": "other-pass"} and password=third')
    logging.getLogger("paramiko").debug("not in the log without --debug")
    s.finish(0)
    assert s.path is not None
    text = s.path.read_text()
    assert "login with ********" in text and secret not in text
    assert "other-pass" not in text and "third" not in text
    assert "not in the log" not in text and "exit 0 after" in text


def test_verbose_shows_steps_on_stderr_and_session_log_from_the_settings_file(tmp_path: Path) -> None:
    (tmp_path / "roceconf.toml").write_text('session-log = "logs"\n')
    r = subprocess.run(
        CMD + ["-v", "validate", str(LAB)], cwd=tmp_path, env=_env(), capture_output=True, text=True
    )
    assert r.returncode == 0
    assert "INFO" in r.stderr and "exit 0 after" in r.stderr
    (log,) = (tmp_path / "logs").glob("roceconf-*-validate-*.log")
    assert "validate" in log.read_text() and "exit 0 after" in log.read_text()


def test_session_log_of_a_live_drift_has_commands_timings_and_no_password(tmp_path: Path) -> None:
    from roceconf.compile import load_valid, output_name, render_fabric
    from roceconf.lab.server import Lab

    fab = load_valid(LAB)
    files = render_fabric(fab)
    user, password = f"ops{secrets.token_hex(3)}", "pw-" + secrets.token_urlsafe(12)
    with Lab(user, password) as lab:
        for name, dev in fab.devices.items():
            lab.add(name, dev.platform, files[output_name(name, dev.platform)])
        inv = lab.write_inventory(tmp_path / "inventory.yml")
        r = subprocess.run(
            CMD
            + [
                "--debug",
                "--session-log",
                str(tmp_path / "logs"),
                "drift",
                str(LAB),
                "--inventory",
                str(inv),
            ],
            cwd=tmp_path,
            env=_env(ROCECONF_USERNAME=user, ROCECONF_PASSWORD=password),
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert r.returncode == 0, r.stdout + r.stderr
    (log,) = (tmp_path / "logs").glob("roceconf-*-drift-*.log")
    text = log.read_text()
    for name in fab.devices:  # per device: the result with attempts and time
        assert re.search(rf"roceconf\.audit: {name}: in_sync after 1 attempt\(s\) in \d+\.\d+ s", text), name
    assert re.search(r"leaf\d: napalm eos open 127\.0\.0\.1:\d+ \(\d+\.\d+ s\)", text)
    assert re.search(r"roceconf\.collect: gpu\d: send .+ \(\d+\.\d+ s\)", text)
    assert re.search(r"(netmiko|paramiko)", text)  # --debug: the client libraries' own logs too
    import base64

    basic = base64.b64encode(f"{user}:{password}".encode()).decode()
    for leak in (password, basic):
        assert leak not in text and leak not in r.stderr and leak not in r.stdout
