# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Action plugin base: pass the host's connection variables (templated by Ansible) to the module.

The module resolves them with the same function as ``roceconf drift --inventory``
(``roceconf.inventory.target_from_vars``), so a playbook and the CLI reach a host the same way.
"""

from __future__ import annotations

from ansible.errors import AnsibleError
from ansible.plugins.action import ActionBase


class ConnectionAction(ActionBase):
    """Fills ``device`` (inventory_hostname) and ``connection`` (the host's connection variables)."""

    MODULE = ""
    _requires_connection = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = dict(self._task.args)
        args.setdefault("device", task_vars.get("inventory_hostname"))
        if "connection" not in args:
            try:
                from roceconf.inventory import CONNECTION_VARS, SECRET_VARS
            except ImportError as e:
                result.update(failed=True, msg=f"roceconf is not importable on the controller: {e}")
                return result
            connection, secrets = {}, {}
            for key in CONNECTION_VARS:
                if key not in task_vars:
                    continue
                try:
                    value = self._templar.template(task_vars[key])
                except AnsibleError as e:
                    first = (str(e).splitlines() or [type(e).__name__])[0]
                    result.update(failed=True, msg=f"{args['device']}: cannot resolve {key}: {first}")
                    return result
                (secrets if key in SECRET_VARS else connection)[key] = value
            args["connection"] = connection
            if secrets:
                args["connection_secrets"] = secrets
        result.update(self._execute_module(module_name=self.MODULE, module_args=args, task_vars=task_vars))
        return result
