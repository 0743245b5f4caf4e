"""Render a DeviceState to platform text with the platform's Jinja2 templates."""

from __future__ import annotations

from functools import cache

import jinja2

from roceconf import platforms
from roceconf.names import compress_interfaces, natural_key
from roceconf.platforms.base import release_at_least
from roceconf.resources import MissingResource, template_root
from roceconf.state import DeviceState, Interface
from roceconf.units import compress_ints


def group_interfaces(
    state: DeviceState, fields: tuple[str, ...] | None = None
) -> list[tuple[list[str], Interface]]:
    """Group ports with identical settings (optionally only the given fields), in natural order.

    Templates use it to emit one range command instead of one per port.
    """
    groups: dict[str, tuple[list[str], Interface]] = {}
    for name in sorted(state.interfaces, key=natural_key):
        itf = state.interfaces[name]
        key = itf.model_dump_json(include=set(fields) if fields else None)
        groups.setdefault(key, ([], itf))[0].append(name)
    return list(groups.values())


def _sorted_items(d: dict) -> list:
    return sorted(d.items(), key=lambda kv: natural_key(str(kv[0])))


def _dscp_by_tc(dscp_to_tc: dict[str, int]) -> list[tuple[int, list[int]]]:
    by: dict[int, list[int]] = {}
    for d, tc in dscp_to_tc.items():
        by.setdefault(tc, []).append(int(d))
    return [(tc, sorted(ds)) for tc, ds in sorted(by.items())]


COMMON_FILTERS = {
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
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(root / platform), str(root / "common")]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
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
        raise MissingResource(f"template {state.platform}/{e.name}", template_root() / state.platform) from None
    text = tpl.render(s=state, state=state, platform=plat)
    return text if text.endswith("\n") else text + "\n"
