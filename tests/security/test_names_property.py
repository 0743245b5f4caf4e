"""Property test (issue 13): whatever name passes validation is harmless once rendered.

Names are drawn per kind (device, interface per platform including host netdevs, RDMA device, profile,
role, class) as real devices use them, then some are mutated with a broad alphabet: whitespace, quotes,
'$', globs, '~', '..', '/', a leading '-', ranges, braces, control and unicode characters. One intent holds
a device of each of the 8 platforms. When the intent validates (``roceconf.compile.load_valid``, what the
CLI uses), ``roceconf render -o`` must

(a) write every file inside the output directory (checked on the resolved path) and nothing elsewhere;
(b) produce shell scripts that ``bash -n`` accepts;
(c) pass every interpolated value (host name, interface names, RDMA device names, as expanded from ranges)
    to the commands as exactly the word it is: never split, never glob- or tilde-expanded.

(c) is checked by bash itself. Each script runs under a harness that stubs every command (``PATH`` points
nowhere, ``command_not_found_handle`` and functions for the builtins record their argv NUL-separated;
``/sys`` and ``/proc`` paths are redirected into a scratch directory, so nothing touches the machine; glob
failures are fatal). The same device is rendered a second time with plain placeholder names; the argv
records (and the redirection errors) of the real script must equal the placeholder script's with each
placeholder replaced by its value. A split value gives more words, a glob or a tilde a different word, a
broken quote a different command.
"""

from __future__ import annotations

import collections
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from roceconf import platforms
from roceconf.compile import load_valid, render_fabric, write_render
from roceconf.diagnostics import DiagnosticError
from roceconf.intent import Fabric
from roceconf.intent.desired import desired_states
from roceconf.render import render_state
from roceconf.state import DeviceState

SWITCHES = ("eos", "nxos", "nvue", "sonic", "junos")
HOSTS = ("connectx", "bnxt", "linux-dcb")
PLATFORMS = SWITCHES + HOSTS

# ---------------------------------------------------------------- names as real devices use them
_PLAIN_INTERFACE = {
    "eos": r"Ethernet[1-9][0-9]?(/[1-9]){0,2}|Port-Channel[1-9][0-9]?",
    "nxos": r"Ethernet[1-9]/[1-9][0-9]?(/[1-4])?|port-channel[1-9][0-9]?",
    "nvue": r"swp[1-9][0-9]?(s[0-3])?|bond[1-9]",
    "sonic": r"Ethernet(0|[1-9][0-9]{0,2})|PortChannel[1-9]",
    "junos": r"(et|xe|ge|mge)-[0-9]/[0-9]/[0-9][0-9]?(:[0-3])?|ae[0-9]",
    # host netdevs: classic, predictable (systemd) names, VLAN sub-interfaces, bonds
    "host": r"eth[0-9]{1,2}|ens[1-9]f[0-3](np[0-3])?|enp[1-9][0-9]?s0f[0-3](np[0-3])?|bond[0-9]|eth[0-9]\.[1-9][0-9]{0,2}",
}
_PLAIN_DEVICE = r"[a-z][a-z0-9]{0,8}(_[a-z0-9]{1,4})?(\.[a-z][a-z0-9]{0,4})?"
_PLAIN_RDMA = r"mlx5_[0-9]{1,2}|bnxt_re[0-9]|rocep[1-9][0-9]?s0f[0-3]|irdma[0-9]"
_PLAIN_IDENT = r"[a-z][a-z0-9_]{0,10}"

#: Fragments a hostile or careless user types into a name.
HOSTILE = (
    " ",
    "\t",
    "..",
    "/",
    "./",
    "../",
    "\\",
    "'",
    '"',
    "$",
    "$x",
    "${x}",
    "$(id)",
    "`id`",
    "*",
    "?",
    "[",
    "]",
    "[0-1]",
    "[1-2,5]",
    "1-2",
    "-",
    "--",
    "~",
    "~root",
    "{a,b}",
    ";",
    "&",
    "|",
    ">",
    "<",
    "!",
    "#",
    "=",
    "%",
    "@",
    ":",
    ",",
    "+",
    "^",
    "(",
    ")",
    ".",
    "_",
    "\x00",
    "\r",
    "\n",
    "\x7f",
    "\u00a0",
    "\u200b",
    "\u202e",
    "é",
    "ß",
    "ı",
    "\uff0f",
    "\u2024",
    "\u30fc",
    "𝟘",
    "{{ x }}",
)
_BROAD = st.text(
    alphabet=st.one_of(
        st.sampled_from("abcXYZ019_.-/:,[] \t'\"$*?~{}();&|<>!#=%@\\`^+"),
        st.characters(exclude_categories=("Cs",)),
    ),
    min_size=0,
    max_size=20,
)


def _plain(regex: str) -> st.SearchStrategy[str]:
    return st.from_regex(re.compile(regex), fullmatch=True)


def _distinct(draw: st.DrawFn, strategy: st.SearchStrategy[str], n: int) -> list[str]:
    """n names of a strategy, made distinct the way people number things (a digit appended)."""
    out: list[str] = []
    for i in range(n):
        name = draw(strategy)
        while name in out:
            name += str(i)
        out.append(name)
    return out


#: Fragments near the grammar's edge (some pass, some do not) and fragments a hostile user types.
_NEAR = st.sampled_from(
    (
        ".",
        "-",
        "_",
        "0",
        "7",
        "x",
        "Z",
        "1-2",
        "1-3",
        "[0-1]",
        "[1-2,5]",
        "[0-8/4]",
        ":",
        ",",
        "..",
        "/",
        "-1",
    )
)
_MUTATION = st.one_of(_NEAR, st.sampled_from(HOSTILE), _BROAD)


@st.composite
def _mutate(draw: st.DrawFn, name: str, near: bool) -> str:
    """``name`` with a fragment inserted, prepended, appended, doubled or replacing part of it; ``near``:
    only fragments at the grammar's edge (about half of such names still validate)."""
    ways = ("insert", "append", "double", "replace") if near else ("insert", "append", "prepend", "broad")
    how = draw(st.sampled_from(ways))
    if how == "broad" and not near:
        return draw(_BROAD)
    frag = draw(_NEAR if near else _MUTATION)
    i = draw(st.integers(1 if near else 0, len(name)))
    if how == "insert":
        return name[:i] + frag + name[i:]
    if how == "prepend":
        return frag + name
    if how == "append":
        return name + frag
    if how == "double":
        return name[:i] + frag + frag + name[i:]
    j = draw(st.integers(i, len(name)))
    return name[:i] + frag + name[j:]


@st.composite
def intents(draw: st.DrawFn) -> tuple[dict, int]:
    """An intent with one device per platform (two interfaces each) and how many names were mutated."""
    names = _distinct(draw, _plain(_PLAIN_DEVICE), len(PLATFORMS))
    devices = []
    for dev_name, plat in zip(names, PLATFORMS, strict=True):
        host = plat in HOSTS
        itfs = _distinct(draw, _plain(_PLAIN_INTERFACE["host" if host else plat]), 2)
        entries = [{"name": n, "speed": "400G", "role": "host"} for n in itfs]
        if host:
            for e, r in zip(entries, _distinct(draw, _plain(_PLAIN_RDMA), 2), strict=True):
                e["rdma_device"] = r
        devices.append({"name": dev_name, "platform": plat, "interfaces": entries})
    profile, role, roce, cnp, default = _distinct(draw, _plain(_PLAIN_IDENT), 5)
    for d in devices:
        d["role"] = role
        d["profiles"] = [profile]
    intent = {
        "version": 1,
        "fabric": "prop",
        "profiles": {profile: {"mtu": {"switch_port": 9214}}},
        "qos": {
            "classes": [
                {
                    "name": roce,
                    "role": "roce",
                    "dscp": [26],
                    "priority": 3,
                    "lossless": True,
                    "ecn": {"min": "150KB", "max": "1500KB", "junos": {"min_percent": 55, "max_percent": 90}},
                    "scheduling": {"mode": "dwrr", "weight_percent": 50},
                },
                {"name": cnp, "role": "cnp", "dscp": [48], "priority": 6, "scheduling": {"mode": "strict"}},
                {
                    "name": default,
                    "dscp": [0],
                    "priority": 0,
                    "scheduling": {"mode": "dwrr", "weight_percent": 50},
                },
            ]
        },
        "devices": devices,
    }
    # the slots a user names: (container, key)
    # the slots a user names: (container, key); the names that reach a shell script come first
    slots: list[tuple[dict | str, str | None]] = []
    for d in devices:
        if d["platform"] in HOSTS:
            slots.append((d, "name"))
            for e in d["interfaces"]:
                slots += [(e, "name"), (e, "rdma_device")]
    in_scripts = len(slots)
    for d in devices:
        if d["platform"] not in HOSTS:
            slots += [(d, "name")] + [(e, "name") for e in d["interfaces"]]
    slots += [(c, "name") for c in intent["qos"]["classes"]]
    slots += [("profile", None), ("role", None)]
    slot = st.one_of(st.integers(0, in_scripts - 1), st.integers(0, len(slots) - 1))
    picks = draw(st.lists(slot, min_size=1, max_size=2, unique=True))
    near = draw(st.booleans())
    for k in picks:
        box, key = slots[k]
        if box == "profile":
            new = draw(_mutate(profile, near))
            intent["profiles"] = {new: intent["profiles"][profile]}
            for d in devices:
                d["profiles"] = [new]
        elif box == "role":
            new = draw(_mutate(role, near))
            for d in devices:
                d["role"] = new
        else:
            box[key] = draw(_mutate(box[key], near))
    return intent, len(picks)


# ---------------------------------------------------------------- the bash harness
HARNESS = r"""
# harness LOG SCRIPT HOST: source SCRIPT with every command stubbed; each command's argv goes to LOG as
# "<argc>\0<argv0>\0...". Nothing outside runs: PATH points nowhere, builtins with effects are functions.
exec 9>"$1"
__script=$2
__host=$3
shift 3
PATH=/nonexistent-roceconf-harness
__rec() { builtin printf '%s\0' "$#" "$@" >&9; }
command_not_found_handle() {
  __rec "$@"
  # hostname(1): -s stops at the first dot
  case $1 in hostname) case ${2-} in -s) builtin printf '%s\n' "${__host%%.*}" ;; *) builtin printf '%s\n' "$__host" ;; esac ;; esac
  return 0
}
echo() { __rec echo "$@"; }
printf() { __rec printf "$@"; }
command() { __rec command "$@"; return 0; }
set() { __rec set "$@"; }
cd() { __rec cd "$@"; }
source() { __rec source "$@"; }
.() { __rec . "$@"; }
eval() { __rec eval "$@"; }
exec() { __rec exec "$@"; }
__test() {
  case $1 in -d|-e|-f|-s|-r|-w|-x) return 0 ;; esac
  builtin test "$@"
}
test() { __rec test "$@"; __test "$@"; }
[() { __rec [ "$@"; local a=("$@"); unset 'a[${#a[@]}-1]'; __test "${a[@]}"; }
shopt -s failglob
builtin source "$__script"
__rec END
"""

_LINE = re.compile(r"^\S+: line \d+: ")


def _records(log: Path) -> list[tuple[str, ...]]:
    parts = log.read_bytes().decode("utf-8", "surrogateescape").split("\0")
    out, i = [], 0
    while i < len(parts) - 1:
        n = int(parts[i])
        out.append(tuple(parts[i + 1 : i + 1 + n]))
        i += 1 + n
    return out


def _placeholders(state: DeviceState, k: int) -> tuple[DeviceState, dict[str, str]]:
    """The same state with plain placeholder names, and placeholder -> real value."""
    mapping: dict[str, str] = {}
    # a dotted host name keeps its dot (hostname -s stops there): one placeholder per side of it
    short, dot, rest = (state.hostname or "").partition(".")
    host = f"QQh{k}Q"
    mapping[host] = short
    if dot:
        mapping[f"QQs{k}Q"] = rest
        host += f".QQs{k}Q"
    interfaces = {}
    for j, (name, itf) in enumerate(state.interfaces.items()):
        ph = f"QQi{k}x{j}Q"
        mapping[ph] = name
        if itf.rdma is not None and itf.rdma.device:
            rph = f"QQr{k}x{j}Q"
            mapping[rph] = itf.rdma.device
            itf = itf.model_copy(update={"rdma": itf.rdma.model_copy(update={"device": rph})})
        interfaces[ph] = itf
    return state.model_copy(update={"hostname": host, "interfaces": interfaces}), mapping


def _sandboxed(text: str, root: Path) -> str:
    """The script with its /sys and /proc paths moved under a scratch root (so a stub can never touch them)."""
    return text.replace("/sys/", f"{root}/sys/").replace("/proc/", f"{root}/proc/")


def _mapped(items: list[tuple[str, ...]], mapping: dict[str, str]) -> collections.Counter:
    def sub(s: str) -> str:
        for ph, real in mapping.items():
            s = s.replace(ph, real)
        return s

    return collections.Counter(tuple(sub(a) for a in rec) for rec in items)


@dataclass
class Script:
    """One rendered host script and the same device rendered with plain placeholder names."""

    name: str
    real: Path
    plain: str
    mapping: dict[str, str]  # placeholder -> the real value
    host: str
    plain_host: str


def host_scripts(fab: Fabric, out: Path) -> list[Script]:
    scripts = []
    for k, (name, state) in enumerate(desired_states(fab).items()):
        plat = platforms.get(fab.devices[name].platform)
        if plat.kind != "nic":
            continue
        ph_state, mapping = _placeholders(state, k)
        real = out / f"{name}.{plat.extension}"
        scripts.append(
            Script(name, real, render_state(ph_state), mapping, state.hostname or "", ph_state.hostname or "")
        )
    return scripts


def word_problems(work: Path, scripts: list[Script]) -> list[str]:
    """(b) and (c) for each script; one bash run drives all of them. Returns what is wrong, if anything."""
    work.mkdir(parents=True, exist_ok=True)
    harness = work / "harness.sh"
    harness.write_text(HARNESS, encoding="utf-8")
    lines = []
    for k, sc in enumerate(scripts):
        d = work / f"d{k}"
        d.mkdir()
        (d / "real.sh").write_text(_sandboxed(sc.real.read_text(encoding="utf-8"), d), encoding="utf-8")
        (d / "plain.sh").write_text(_sandboxed(sc.plain, d), encoding="utf-8")
        lines.append(f"bash -n {shlex.quote(str(sc.real))} 2>{shlex.quote(str(d / 'syntax'))}")
        for side, host in (("real", sc.host), ("plain", sc.plain_host)):
            args = " ".join(shlex.quote(str(a)) for a in (harness, d / f"{side}.log", d / f"{side}.sh", host))
            lines.append(
                f"(cd {shlex.quote(str(d))} && bash {args} </dev/null >/dev/null 2>{shlex.quote(str(d / side))}.err)"
            )
    (work / "driver.sh").write_text("\n".join([*lines, ""]), encoding="utf-8")
    subprocess.run(["bash", str(work / "driver.sh")], capture_output=True, timeout=60, check=False)
    problems = []
    for k, sc in enumerate(scripts):
        d = work / f"d{k}"
        syntax = (d / "syntax").read_text()
        if syntax:
            problems.append(f"bash -n rejects {sc.name}'s script: {syntax}")
            continue
        real, plain = _records(d / "real.log"), _records(d / "plain.log")
        if not plain or plain[-1] != ("END",):
            problems.append(f"the placeholder script of {sc.name} stopped early: {plain[-3:]}")
        used = {a for rec in plain for a in rec}
        for placeholder, value in sc.mapping.items():
            # (a host name's part after the dot may stay in an assignment: ConnectX compares short names)
            if not placeholder.startswith("QQs") and not any(placeholder in a for a in used):
                problems.append(f"{value!r} of {sc.name} reaches no command")
        want, got = _mapped(plain, sc.mapping), collections.Counter(real)
        if got != want:
            problems.append(
                f"{sc.name}: the words differ from the same script with plain names; "
                f"only in the real script: {list((got - want).elements())[:4]}, "
                f"only with plain names: {list((want - got).elements())[:4]}"
            )
        errs = {
            side: [(_LINE.sub("", ln),) for ln in (d / f"{side}.err").read_text().splitlines()]
            for side in ("real", "plain")
        }
        got_err, want_err = collections.Counter(errs["real"]), _mapped(errs["plain"], sc.mapping)
        if got_err != want_err:
            problems.append(
                f"{sc.name}: bash reports differ: {list((got_err - want_err).elements())[:4]} "
                f"vs {list((want_err - got_err).elements())[:4]}"
            )
    return problems


def _inside(out: Path, base: Path) -> None:
    """(a): every file written is inside the output directory, by resolved path; nothing else appeared."""
    root = out.resolve()
    for p in base.rglob("*"):
        assert not p.is_symlink(), p
        if p.is_file():
            assert p.resolve().is_relative_to(root), f"{p} is outside {out}"


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(intents())
def test_validated_names_stay_inside_the_output_and_are_single_words(example: tuple[dict, int]) -> None:
    intent, mutated = example
    tmp = Path(tempfile.mkdtemp(prefix="roceconf-names-"))
    try:
        base = tmp / "base"
        out = base / "a" / "out"
        out.mkdir(parents=True)
        src = tmp / "intent.yml"
        src.write_text(yaml.safe_dump(intent, allow_unicode=True, sort_keys=False), encoding="utf-8")
        try:
            fab = load_valid(src)
        except DiagnosticError as e:
            event(f"refused ({e.diagnostics[0].code})")
            for diag in e.diagnostics:
                assert "\n" not in diag.message and "\r" not in diag.message, diag.message
            return
        event(f"validated, {mutated} mutated name(s), {len(fab.devices)} devices")
        # what `roceconf render INTENT -o DIR` does after load_valid
        write_render(render_fabric(fab), out)
        _inside(out, base)
        assert sorted(p.name for p in tmp.iterdir()) == ["base", "intent.yml"]
        written = {p.name for p in out.iterdir() if not p.name.startswith(".")}
        expected = {f"{n}.{platforms.get(d.platform).extension}" for n, d in fab.devices.items()}
        assert written == expected
        scripts = host_scripts(fab, out)
        assert len(scripts) >= len(HOSTS)
        assert word_problems(tmp / "work", scripts) == []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------- the checker itself catches what it should
_PLAIN_SCRIPT = (
    "set -euo pipefail\n"
    "[ -d /sys/class/net/{v} ] || exit 1\n"
    "ip link set dev {v} mtu 9000\n"
    "echo 1 > /sys/class/net/{v}/mtu\n"
)


@pytest.mark.parametrize(
    ("value", "rendered", "ok"),
    [
        ("eth0 down", "eth0 down", False),  # split into two words
        ("e*", "e*", False),  # a glob
        ("~root", "~root", False),  # tilde expansion
        ("{a,b}", "{a,b}", False),  # brace expansion
        ("x$HOME", "x$HOME", False),  # parameter expansion
        ("eth0 down", "'eth0 down'", True),  # quoted: one word, whatever it holds
        ("e*", "'e*'", True),
        ("eth0", "eth0", True),
    ],
)
def test_the_word_check_catches_split_and_expanded_values(
    tmp_path: Path, value: str, rendered: str, ok: bool
) -> None:
    real = tmp_path / "h.sh"
    real.write_text(_PLAIN_SCRIPT.format(v=rendered), encoding="utf-8")
    sc = Script("h", real, _PLAIN_SCRIPT.format(v="QQi0x0Q"), {"QQi0x0Q": value}, "h", "QQh0Q")
    problems = word_problems(tmp_path / "work", [sc])
    assert (problems == []) is ok, problems


def test_the_syntax_check_catches_a_broken_script(tmp_path: Path) -> None:
    real = tmp_path / "h.sh"
    real.write_text(_PLAIN_SCRIPT.format(v="'eth0") + "\n", encoding="utf-8")
    sc = Script("h", real, _PLAIN_SCRIPT.format(v="QQi0x0Q"), {"QQi0x0Q": "'eth0"}, "h", "QQh0Q")
    (problem,) = word_problems(tmp_path / "work", [sc])
    assert problem.startswith("bash -n rejects h's script")


def test_a_dotted_host_name_runs_its_own_script(tmp_path: Path) -> None:
    """Found by the property test: the ConnectX script compared `hostname -s` (the name up to the first dot)
    with the whole device name, so a host named gpu1.pod refused to run its own script."""
    from tests.security.test_names import _minimal

    src = tmp_path / "intent.yml"
    src.write_text(_minimal("connectx").replace("name: dev1", "name: gpu1.pod"), encoding="utf-8")
    fab = load_valid(src)
    out = tmp_path / "out"
    write_render(render_fabric(fab), out)
    (script,) = host_scripts(fab, out)
    assert script.real.name == "gpu1.pod.sh"
    assert word_problems(tmp_path / "work", [script]) == []
