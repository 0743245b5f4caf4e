"""Settings a device's OS release does not have yet (RC167).

A platform lists, in ``Capabilities.introduced``, the first release whose configuration has a setting roceconf
renders (with the source that says so). The desired state of a device on an older release (intent
``os_version:``, else the one its model implies, else the platform's newest documented release) leaves the
setting out, so nothing is rendered that the release would refuse; an intent that counts on it (the PFC
watchdog armed, QoS at all) is refused here instead of being dropped silently.
"""

from __future__ import annotations

import roceconf.intent.desired as desired
from roceconf.intent.fabric import DeviceSpec, Fabric
from roceconf.intent.rules import check, rule
from roceconf.platforms.base import version_key
from roceconf.state import DeviceState

R_RELEASE = rule(
    "RC167",
    "error",
    "Setting not available in the device's OS release",
    "upgrade the device (set `os_version:` to a release that has it), or leave the setting out for it "
    "(a role or profile override, e.g. `pfc_watchdog: {enabled: false}`)",
    "the release's configuration has no such setting: the device would refuse the whole change, and the "
    "setting the intent counts on would not be there",
)

#: What each ``Capabilities.introduced`` feature name means, and whether the intent counts on it (judged on
#: what the intent asks of the device, before any platform capability is applied).
FEATURES = {
    "qos": ("QoS configuration (DSCP mapping, PFC, ECN, scheduling, buffer pools)", lambda s: True),
    "pfc_watchdog": (
        "PFC watchdog",
        lambda s: bool(s.pfc_watchdog.enabled) and any(p.pfc_watchdog for p in s.interfaces.values()),
    ),
}


def _renders(feature: str, state: DeviceState) -> bool:
    return FEATURES[feature][1](state)


def _position(fab: Fabric, dev: DeviceSpec) -> tuple:
    """The device's `os_version:` where the intent states it, else the device entry."""
    where = dev.path + ("os_version",)
    return where if where in fab.positions.values else dev.path


@check
def _releases(fab: Fabric) -> None:
    """RC167: per device shape, each setting the release does not have that the intent counts on."""
    from roceconf import platforms

    done: set[tuple] = set()
    for dev in fab.devices.values():
        try:
            plat = platforms.get(dev.platform)
        except (ImportError, AttributeError, KeyError):
            continue
        introduced = plat.capabilities.introduced
        release = plat.release(dev.os_version, dev.model) if introduced else None
        if not release:
            continue
        missing = [
            (f, first, src) for f, first, src in introduced if version_key(release) < version_key(first)
        ]
        key = (dev.platform, release, id(dev.settings), desired.ports_key(dev))
        if not missing or key in done:
            continue
        done.add(key)
        state = desired.intended_state(dev)
        lacking = [(f, first, src) for f, first, src in missing if _renders(f, state)]
        if lacking:  # one diagnostic per device entry (one position): every setting it lacks
            fab.diag(
                _position(fab, dev),
                R_RELEASE.severity,
                R_RELEASE.id,
                f"{dev.name} ({dev.platform} {release}): "
                + "; ".join(
                    f"{FEATURES[f][0]} needs release {first} or later ({src})" for f, first, src in lacking
                ),
                R_RELEASE.hint,
            )
