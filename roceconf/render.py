"""Render a DeviceState to platform text with the platform's Jinja2 templates."""

from __future__ import annotations

import re
import shlex
from functools import cache
from typing import Any

import jinja2

from roceconf import platforms
from roceconf.names import compress_interfaces, group_interfaces, natural_key
from roceconf.platforms.base import release_at_least
from roceconf.resources import MissingResource, template_root
from roceconf.state import DeviceState
from roceconf.tplcache import bytecode_cache
from roceconf.units import compress_ints


def _sorted_items(d: dict) -> list:
    return sorted(d.items(), key=lambda kv: natural_key(str(kv[0])))


def _dscp_by_tc(dscp_to_tc: dict[str, int]) -> list[tuple[int, list[int]]]:
    by: dict[int, list[int]] = {}
    for d, tc in dscp_to_tc.items():
        by.setdefault(tc, []).append(int(d))
    return [(tc, sorted(ds)) for tc, ds in sorted(by.items())]


#: characters that end or hide a line (control characters, line and paragraph separators, direction
#: overrides): a value holding one is written in bash's $'...' form, so no value spans two lines of a script
_CONTROL_CHARS = "\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069"
_SHELL_CONTROL = re.compile(f"[{_CONTROL_CHARS}]")
_ANSI_C_ESCAPED = re.compile(f"[\\\\'{_CONTROL_CHARS}]")


def _ansi_c(m: re.Match[str]) -> str:
    """One character inside $'...': backslash and quote escaped, the others as their UTF-8 bytes (\\xHH,
    whatever the locale)."""
    ch = m.group()
    if ch in "\\'":
        return "\\" + ch
    return "".join(f"\\x{b:02x}" for b in ch.encode("utf-8"))


def shell_quote(value: object, always: bool = False) -> str:
    """One inert shell word on one line, whatever the value: the quoting of every generated script (host
    NIC scripts, the acceptance script). Plain words stay as they are (``always``: single-quoted anyway);
    quotes, ``$``, backticks and spaces are single-quoted; control characters and line separators take
    bash's ``$'...'`` form. Names are validated too, so this is the second line of defence."""
    s = str(value)
    if _SHELL_CONTROL.search(s):
        return "$'" + _ANSI_C_ESCAPED.sub(_ansi_c, s) + "'"
    if always:
        return "'" + s.replace("'", "'\"'\"'") + "'"
    return shlex.quote(s)


def shell_dquote(value: object) -> str:
    """A value inside a double-quoted shell string (a message): $, `, " and \\ escaped; a control character
    or line separator as ``?`` (a message never spans lines)."""
    return re.sub(r'([$`"\\])', r"\\\1", _SHELL_CONTROL.sub("?", str(value)))


def script_finalize(value: object) -> object:
    """Every ``{{ }}`` of a host script: a string that would start a new line is quoted (`shell_quote`)."""
    if isinstance(value, str) and _SHELL_CONTROL.search(value):
        return shell_quote(value)
    return value


COMMON_FILTERS = {
    "shq": shell_quote,
    "shdq": shell_dquote,
    "ranges": compress_ints,
    "compress_interfaces": compress_interfaces,
    "sorted_items": _sorted_items,
    "dscp_by_tc": _dscp_by_tc,
    "natural_sort": lambda names: sorted(names, key=natural_key),
}


@cache
def environment(platform: str) -> jinja2.Environment:
    plat = platforms.get(platform)
    root = template_root()
    if not (root / platform / plat.template).is_file():
        raise MissingResource(f"template {platform}/{plat.template}", root / platform / plat.template)
    options = {
        "undefined": jinja2.StrictUndefined,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "keep_trailing_newline": True,
        "autoescape": False,
    }
    salt = repr(sorted(options.items()))
    if plat.apply_method == "script":  # a host script: no value may start a line of its own
        options["finalize"] = script_finalize
        salt += " finalize=script_finalize"
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(root / platform), str(root / "common")]),
        bytecode_cache=bytecode_cache(salt),
        **options,  # type: ignore[arg-type]
    )
    env.filters.update(COMMON_FILTERS)
    env.filters.update(plat.filters)
    env.globals["group_interfaces"] = group_interfaces
    env.globals["release_at_least"] = release_at_least
    return env


def render_state(state: DeviceState, template: str | None = None) -> str:
    """Render a state with its platform's main template. Values that are None render nothing."""
    plat = platforms.get(state.platform)
    env = environment(state.platform)
    name = template or plat.template
    try:
        tpl = env.get_template(name)
    except jinja2.TemplateNotFound as e:
        raise MissingResource(
            f"template {state.platform}/{e.name}", template_root() / state.platform
        ) from None
    text = tpl.render(s=state, state=state, platform=plat)
    return text if text.endswith("\n") else text + "\n"


#: a hostname no template can produce by itself; only characters every config syntax and JSON keep as is
PLACEHOLDER = "roceconfHOSTNAMEplaceholder0"
PLAIN_NAME = re.compile(r"[A-Za-z0-9._-]+")


class ShapeRenderer:
    """Render many devices that differ only by hostname (the devices of one intent entry) at the cost of one.

    Per group (`key`), the state is rendered once with a placeholder hostname; a device's text is that text
    with the placeholder replaced by its hostname. This is exact only when templates insert the hostname
    verbatim, so it is checked, not assumed: the first two devices of a group are rendered for real and
    compared with the substitution; on any difference (or a hostname outside ``[A-Za-z0-9._-]``) every
    device of the group is rendered for real.
    """

    def __init__(self) -> None:
        self._groups: dict[Any, tuple[str | None, int]] = {}  # key -> (template text or None, checks done)

    def placeholder_text(self, key: Any, state: DeviceState) -> str:
        """The group's text with the placeholder for the hostname (see `PLACEHOLDER`)."""
        tmpl, _ = self._groups.get(key, ("", 0))
        return tmpl or render_state(state.model_copy(update={"hostname": PLACEHOLDER}))

    def render(self, key: Any, state: DeviceState) -> str:
        name = state.hostname or ""
        if not PLAIN_NAME.fullmatch(name):
            return render_state(state)
        tmpl, checked = self._groups.get(key, ("", 0))
        if tmpl is None:  # substitution disproved for this group
            return render_state(state)
        if checked >= 2:
            return tmpl.replace(PLACEHOLDER, name)
        if not tmpl:
            tmpl = self.placeholder_text(key, state)
        real = render_state(state)
        ok = PLACEHOLDER not in real and tmpl.replace(PLACEHOLDER, name) == real
        self._groups[key] = (tmpl if ok else None, checked + 1)
        return real
