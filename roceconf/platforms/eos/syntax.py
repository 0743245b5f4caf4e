"""Arista EOS: the name and sources the parser, the render helpers and the capabilities share."""

from __future__ import annotations

NAME = "eos"

_AVD = "github.com/aristanetworks/avd"
_AVD_PFC_SCHEMA = (
    f"{_AVD}: python-avd/pyavd/_eos_cli_config_gen/schema/schema_fragments/priority_flow_control.schema.yml"
)
_AVD_QOS_PROFILES = f"{_AVD}: python-avd/pyavd/_eos_cli_config_gen/j2templates/eos/qos-profiles.j2"
_ANNET = "github.com/annetutil/annet: Arista implicit-config rules (hidden 'ip load-sharing trident fields')"
_STIG_DSCP = (
    "DISA STIG Arista MLS EOS 4.2x RTR, SV-256012 / ARST-RT-000300 (a 'qos map dscp' line naming 50 DSCPs)"
)


def unused_queues(hints: dict[str, str]) -> tuple[int, ...]:
    """Queues a RoCE profile sets to round robin when the intent does not use them: EOS serves every
    queue left at its default as strict priority, higher queue first, so an unused queue 4/5/7 would be
    served ahead of the RoCE queue. Sand switches reserve queue 7 for control-plane traffic (not
    user-configurable before EOS 4.33.0F, Arista TOI "tx-queue 7 configurable"), so it is left alone there."""
    return tuple(range(7)) if hints.get("family") == "sand" else tuple(range(8))
