"""Cabling rules RC500-RC505 (what LLDP says about the intent's links), link health RC510-RC517 (RC519: a check
the platform cannot observe; RC514-RC516 optics against the module's own thresholds, RC517 the two ends' FEC modes) and ECMP balance RC520 (what the link counters say, sampled twice like ``health``). Registered in the catalogue of the validation
rules (``roceconf.intent.rules.RULES``), so ``docs/rules.md`` lists them; docs/cabling.md says how each is decided
and gives the thresholds (:class:`LinkThresholds`)."""

from __future__ import annotations

from dataclasses import dataclass

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


R_FCS = rule(
    "RC510",
    "error",
    "FCS/CRC errors rising on a link",
    "clean or replace the optics and the cable of the link (the errors count at the receiving end)",
    "every frame with a bad FCS is dropped: on a lossless class that is a RoCE go-back-N retransmission",
)
R_FEC = rule(
    "RC511",
    "error",
    "Uncorrectable FEC codewords rising on a link",
    "check the optics, the cable and the FEC mode of both ends; replace the failing part",
    "an uncorrectable codeword corrupts the frames in it: they are dropped like FCS errors",
)
R_FLAP = rule(
    "RC512",
    "error",
    "Link flapped between samples",
    "check the optics, the cable and the port's logs at both ends; a link that keeps flapping must be drained",
    "a flap drops everything in flight, reroutes ECMP traffic and restarts PFC/ECN state on both ends",
)
R_SPEED = rule(
    "RC513",
    "error",
    "Link speed mismatch: an end runs at another speed than the intent's (or than the far end)",
    "set both ends' port speed (and so their FEC mode) to the intent's, check that the optics and the cable support it",
    "an end running at another speed than planned halves (or worse) the link's bandwidth, and its buffer and ECN "
    "thresholds were computed for the intent's speed",
)
R_RX_POWER = rule(
    "RC514",
    "error",
    "Optics: received power outside the module's own thresholds (warning or alarm)",
    "clean the fibre and connectors of the link, check the far end's transmit power (RC515 there); replace the "
    "cable or the optics",
    "light below the receiver's range gives FCS/FEC errors and flaps, above it saturates the receiver; the "
    "finding's severity is the threshold crossed: warning, or error past the alarm threshold",
)
R_TX_POWER = rule(
    "RC515",
    "error",
    "Optics: transmitted power outside the module's own thresholds (warning or alarm)",
    "reseat or replace the transceiver: its laser is failing (or overdriven)",
    "a weak laser starves the far end's receiver: errors, then flaps; the finding's severity is the threshold "
    "crossed: warning, or error past the alarm threshold",
)
R_TEMPERATURE = rule(
    "RC516",
    "error",
    "Optics: module temperature outside the module's own thresholds (warning or alarm)",
    "check the airflow and the fans around the port; replace the transceiver if it runs hot alone",
    "a transceiver past its temperature range drifts out of its power specification and fails; the finding's "
    "severity is the threshold crossed: warning, or error past the alarm threshold",
)
R_FEC_MODE = rule(
    "RC517",
    "error",
    "FEC mode mismatch: the two ends of a link run different FEC modes",
    "set the same FEC mode at both ends (the one the optics and the speed call for, e.g. RS-FEC for 100G "
    "and 25G/lane links), or auto-negotiation at both ends",
    "ends with different FEC modes do not come up, or come up decoding garbage: every frame is an FCS error "
    "or an uncorrectable codeword, and the link flaps",
)
R_NOT_OBSERVABLE = rule(
    "RC519",
    "info",
    "Link check not observable on the platform: n/a",
    "judge that check another way (the far end, the optics' own readings) until roceconf reads a sourced counter "
    "for it on this platform (docs/cabling.md lists what each platform reads)",
    "the platform's answers carry no counter roceconf has a primary source for: the check is not judged there, "
    "said once per platform and check instead of an unknown on every link",
)
R_ECMP = rule(
    "RC520",
    "warning",
    "ECMP imbalance toward the next tier",
    "compare the hash fields and seeds of the tiers (roceconf check, RC213) and the flows' UDP source ports",
    "one hot uplink congests (ECN marks, pauses) while the others idle: collectives run at the slowest link's pace",
)

#: the rules of the LLDP check, one JUnit case each (the link rules are written only where counters were given;
#: RC519 is no case of its own: it is the reason a link rule's case is skipped)
ALL: tuple[Rule, ...] = (R_MISSING, R_MISWIRED, R_UNEXPECTED, R_CROSSED_RAIL, R_WRONG_LEAF, R_UNREAD)
LINK_RULES: tuple[Rule, ...] = (R_FCS, R_FEC, R_FLAP, R_SPEED, R_RX_POWER, R_TX_POWER, R_TEMPERATURE, R_FEC_MODE,
                                R_ECMP)


@dataclass(frozen=True)
class LinkThresholds:
    """The thresholds of the link rules; rates are per second over each interval between two samples."""

    #: RC510: FCS/CRC errors per second above which a link end is reported (any rise: each one is a drop)
    fcs_per_second: float = 0.0
    #: RC511: uncorrectable FEC codewords per second above which a link end is reported
    fec_uncorrectable_per_second: float = 0.0
    #: RC512: carrier transitions during the sampled time above which a link end is reported
    flaps: int = 0
    #: RC520: the hottest member's rate over the group's mean above which the group is imbalanced ...
    ecmp_max_over_mean: float = 1.5
    #: ... or the coefficient of variation (standard deviation / mean) of the members' rates
    ecmp_cv: float = 0.25
    #: RC520 judges a group only when its members' mean rate is at least this many bytes per second
    ecmp_min_bytes_per_second: float = 1_000_000.0


DEFAULT = LinkThresholds()
