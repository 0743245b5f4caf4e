"""Cabling rules RC500-RC505: what LLDP says about the intent's links. Registered in the catalogue of the
validation rules (``roceconf.intent.rules.RULES``), so ``docs/rules.md`` lists them; docs/cabling.md says how
each is decided."""

from __future__ import annotations

from roceconf.intent.rules import Rule, rule

R_MISSING = rule(
    "RC500",
    "error",
    "Intended link not seen by LLDP",
    "check that the cable is plugged in at both ends, the port is up and LLDP runs on both devices",
    "a link the intent counts on is absent: its lossless traffic is rerouted or lost and ECMP is unbalanced",
)
R_MISWIRED = rule(
    "RC501",
    "error",
    "Miswired: the port's LLDP neighbour is not the intent's",
    "move the cable to the port the intent names (the finding says where it lands instead)",
    "a cable in the wrong port carries traffic to a port configured for another peer: PFC/ECN pairs mismatch",
)
R_UNEXPECTED = rule(
    "RC502",
    "warning",
    "Unexpected neighbour: a cable between fabric devices the intent does not list",
    "add the link to the intent or remove the cable",
    "a link nobody configured carries traffic without the intent's lossless settings",
)
R_CROSSED_RAIL = rule(
    "RC503",
    "error",
    "Crossed rails: a host NIC lands on the leaf of another rail",
    "swap the host's NIC cables back so that NIC k goes to the leaf of rail k",
    "rail-optimised collectives expect NIC k on rail k: a crossed pair sends rail traffic through the spines",
)
R_WRONG_LEAF = rule(
    "RC504",
    "error",
    "NIC on the wrong leaf",
    "move the NIC's cable to the leaf and port the intent names",
    "the NIC lands on a leaf whose port is configured for another host: its traffic takes the wrong path",
)
R_UNREAD = rule(
    "RC505",
    "error",
    "LLDP neighbours could not be read",
    "check the device's reachability and credentials, or save its LLDP output for --lldp",
    "a link that could not be checked is unknown, never confirmed",
)

ALL: tuple[Rule, ...] = (R_MISSING, R_MISWIRED, R_UNEXPECTED, R_CROSSED_RAIL, R_WRONG_LEAF, R_UNREAD)
