# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Action plugin of roceconf.fabric.cabling: every listed host's connection variables go to the module (as for
roceconf.fabric.health)."""

from __future__ import annotations

from ansible_collections.roceconf.fabric.plugins.action.health import ActionModule as HealthAction


class ActionModule(HealthAction):
    MODULE = "roceconf.fabric.cabling"
