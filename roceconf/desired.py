"""Moved to :mod:`roceconf.intent.desired` (the desired state is part of the intent layer); this name stays for
code outside roceconf that imports it (the Ansible collection's modules)."""

from roceconf.intent.desired import (
    default_class,
    desired_state,
    desired_states,
    dscp_homes,
    expressible,
    expressible_states,
    intended_state,
    shape,
)

__all__ = [
    "default_class",
    "desired_state",
    "desired_states",
    "dscp_homes",
    "expressible",
    "expressible_states",
    "intended_state",
    "shape",
]
