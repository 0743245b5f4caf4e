# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Options shared by the modules that connect to a device."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  device:
    description:
      - Device name in the intent. The action plugin fills in C(inventory_hostname).
    type: str
    required: true
  connection:
    description:
      - The host's connection variables, resolved like C(roceconf drift --inventory) does
        (C(roceconf.inventory.target_from_vars)) - the platform from C(ansible_network_os) or
        C(roceconf_platform), the address from C(ansible_host), the transport from C(ansible_connection)
        and C(ansible_httpapi_use_ssl), the port from C(ansible_httpapi_port) / C(ansible_port),
        certificate checks from C(ansible_httpapi_validate_certs) / C(ansible_httpapi_ca_path), credentials
        from C(ansible_user), C(ansible_password), C(ansible_ssh_private_key_file), the SSH agent and
        C(ProxyJump) in C(ansible_ssh_common_args).
      - Filled in by the action plugin from the host's variables (templated by Ansible); leave it out.
    type: dict
  connection_secrets:
    description:
      - The host's password variables (C(ansible_password) and its aliases), apart from O(connection) so that
        only they are hidden from logs. Filled in by the action plugin; leave it out.
    type: dict
  host:
    description: Override the address (default C(ansible_host)).
    type: str
  port:
    description: Override the TCP port (SSH, or eAPI for EOS).
    type: int
  platform:
    description: Override the roceconf platform (must match the intent).
    type: str
  transport:
    description: Override the transport.
    type: str
    choices: [ssh, http, https, netconf]
  username:
    description: Override the login name. Default C(ansible_user), then C(ROCECONF_USERNAME).
    type: str
  password:
    description: Override the password. Default C(ansible_password) (vault), then C(ROCECONF_PASSWORD).
    type: str
  key_file:
    description: Override the SSH private key file (default C(ansible_ssh_private_key_file)).
    type: path
  validate_certs:
    description:
      - Verify the eAPI HTTPS certificate. Default C(ansible_httpapi_validate_certs), which defaults to true.
    type: bool
  ca_file:
    description: CA bundle that signed the eAPI certificate (default C(ansible_httpapi_ca_path)).
    type: path
"""
