# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""The connection target of a module call: the host's variables resolved by roceconf, then the overrides."""

from __future__ import annotations

import os

CONNECTION_ARGS = {
    "device": {"type": "str", "required": True},
    "connection": {"type": "dict"},
    "connection_secrets": {"type": "dict", "no_log": True},
    "host": {"type": "str"},
    "port": {"type": "int"},
    "platform": {"type": "str"},
    "transport": {"type": "str", "choices": ["ssh", "http", "https", "netconf"]},
    "username": {"type": "str"},
    "password": {"type": "str", "no_log": True},
    "key_file": {"type": "path", "no_log": False},
    "validate_certs": {"type": "bool"},
    "ca_file": {"type": "path"},
}

#: explicit options that stand for a host variable (resolved together with the others)
_AS_VARS = {"platform": "roceconf_platform", "host": "ansible_host", "transport": "roceconf_transport"}
#: explicit options set on the resolved target
_ON_TARGET = {
    "port": "port",
    "username": "username",
    "password": "password",
    "key_file": "key_file",
    "validate_certs": "verify",
    "ca_file": "ca_file",
}


def target_from_params(params):
    """A roceconf Target: the host's connection variables, with the explicit options on top."""
    from roceconf.inventory import target_from_vars

    hostvars = dict(params.get("connection") or {})
    hostvars.update(params.get("connection_secrets") or {})
    for option, var in _AS_VARS.items():
        if params.get(option) is not None:
            hostvars[var] = params[option]
    target = target_from_vars(params["device"], hostvars, env=os.environ)
    for option, attr in _ON_TARGET.items():
        if params.get(option) is not None:
            setattr(target, attr, params[option])
    return target
