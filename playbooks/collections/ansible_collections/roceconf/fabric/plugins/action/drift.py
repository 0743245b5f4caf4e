# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Action plugin of roceconf.fabric.drift: the host's connection variables go to the module."""

from __future__ import annotations

from ansible_collections.roceconf.fabric.plugins.plugin_utils.connection_action import ConnectionAction


class ActionModule(ConnectionAction):
    MODULE = "roceconf.fabric.drift"
