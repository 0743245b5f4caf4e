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


def shell_quote(value: object) -> str:
    """One shell word, whatever the value (names are validated too, so this is a second line of defence)."""
    return shlex.quote(str(value))


def shell_dquote(value: object) -> str:
    """A value inside a double-quoted shell string: $, `, " and \\ escaped."""
    return re.sub(r'([$`"\\])', r"\\\1", str(value))


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
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(root / platform), str(root / "common")]),
        bytecode_cache=bytecode_cache(repr(sorted(options.items()))),
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
