# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Action plugin of roceconf.fabric.health (and, by subclass, roceconf.fabric.bom): every listed host's
connection variables go to the module."""

from __future__ import annotations

from ansible.errors import AnsibleError
from ansible.plugins.action import ActionBase


class ActionModule(ActionBase):
    MODULE = "roceconf.fabric.health"
    _requires_connection = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = dict(self._task.args)
        if "connections" not in args:
            try:
                from roceconf.inventory import CONNECTION_VARS, SECRET_VARS
            except ImportError as e:
                result.update(failed=True, msg=f"roceconf is not importable on the controller: {e}")
                return result
            hostvars = task_vars.get("hostvars", {})
            connections, secrets = [], []
            for device in args.get("devices") or []:
                hv = hostvars.get(device, {})
                connection, secret = {}, {}
                for key in CONNECTION_VARS:
                    if key not in hv:
                        continue
                    try:
                        value = hv[key]  # HostVars template on access
                    except AnsibleError as e:
                        first = (str(e).splitlines() or [type(e).__name__])[0]
                        result.update(failed=True, msg=f"{device}: cannot resolve {key}: {first}")
                        return result
                    (secret if key in SECRET_VARS else connection)[key] = value
                connections.append(connection)
                secrets.append(secret)
            args["connections"] = connections
            args["connection_secrets"] = secrets
        result.update(self._execute_module(module_name=self.MODULE, module_args=args, task_vars=task_vars))
        return result
