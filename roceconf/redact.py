"""Device secrets out of saved configs and session logs, in every grammar roceconf reads.

What a running config holds besides QoS: SNMP communities and SNMPv3 keys, TACACS+/RADIUS keys, enable
secrets, local users' password hashes, routing-protocol and NTP keys. :func:`redact` replaces each such
value with ``<removed>`` (Oxidized and netutils' ``sanitize_config`` do the same per platform; netutils applies
the rules here) and keeps every other byte, so a saved config audits exactly as the device did: the rules
match only lines that state a secret, never a QoS line.

Grammars: EOS / NX-OS CLI (``enable secret``, ``username ... secret|password``, ``snmp-server community``,
``snmp-server user ... auth|priv``, ``tacacs-server|radius-server ... key``, ``neighbor ... password``,
``ntp authentication-key``, ``authentication-key``/``message-digest-key``), Junos set and curly
(``encrypted-password``, ``secret``, ``authentication-key``, ``pre-shared-key``, ``snmp community``; NETCONF
XML too), NVUE YAML (``password``, ``hashed-password``, ``secret``, ``key``, ``*-community`` names), SONiC
config_db JSON (``passkey``, ``*password*`` values, the names in ``SNMP_COMMUNITY``) and host read-backs
(``password=``/``secret=`` assignments). JSON inside a log line (eAPI, NX-API) is read with its ``\\n``
escapes as line ends.
"""

from __future__ import annotations

import re

REMOVED = "<removed>"

#: a secret value: a quoted string or one word
_V = r"""(?:\\"[^"\n]*?\\"|"[^"\n]*"|'[^'\n]*'|[^\s"';{}]+)"""

#: line rules (MULTILINE): group 1 is kept, the value after it replaced
_LINE_RULES: list[tuple[str, str]] = [
    # EOS / NX-OS / IOS-like CLI
    rf"^(\s*enable\s+(?:secret|password)(?:\s+level\s+\d+)?(?:\s+(?:sha512|\d+))?\s+){_V}",
    rf"^(\s*username\s+\S+\b.*?\b(?:secret|password)(?:\s+(?:sha512|\d+))?\s+){_V}",
    rf"^(\s*username\s+\S+\b.*?\bsshkey\s+){_V}",
    rf"^(\s*snmp-server\s+community\s+){_V}",
    rf"^(\s*snmp-server\s+user\s+.*?\bauth\s+\S+\s+){_V}",
    rf"^(\s*snmp-server\s+user\s+.*?\bpriv\s+(?:(?:aes|des|3des)[-\d]*\s+)?){_V}",
    rf"^(\s*snmp-server\s+host\s+\S+\s+(?:(?:traps|informs|version\s+\S+|vrf\s+\S+)\s+)*){_V}",
    rf"^(\s*(?:tacacs-server|radius-server|tacacs|radius)\b.*?\bkey(?:\s+\d+)?\s+){_V}",
    rf"^(\s*(?:neighbor|peer)\s+.*?\bpassword(?:\s+\d+)?\s+){_V}",
    rf"^(\s*ntp\s+authentication-key\s+\d+\s+\S+\s+){_V}",
    rf"^(\s*(?:ip\s+)?(?:ospf\s+|isis\s+)?(?:authentication-key|message-digest-key\s+\d+\s+md5)(?:\s+\d+)?\s+){_V}",
    rf"^(\s*(?:key-string|pre-shared-key|psk)(?:\s+\d+)?\s+){_V}",
    # Junos set / curly
    rf"^(\s*(?:\S.*?\s)?(?:encrypted-password|plain-text-password-value|secret|authentication-key|"
    rf"simple-password|hexadecimal-text|ascii-text|authentication-password|privacy-password)\s+)"
    rf"(?!sha512\b|\d+\s|<removed>){_V}",
    rf"^(\s*set\s+snmp\s+community\s+){_V}",
    rf"^(\s*set\s+snmp\s+.*?\bcommunity-name\s+){_V}",
    rf"^(\s*community\s+)(?!name\b){_V}(?=\s*[{{;])",
    # NVUE YAML (and YAML-like host files)
    r"^(\s*(?:-\s+)?(?:hashed-password|password|secret|key|passkey|auth-key|priv-key|authentication-password|"
    rf"encryption-password|community-password|shared-secret)\s*:\s+){_V}",
    rf"^(\s*(?:readonly|readwrite)-community(?:-v6)?:\s*\n\s+){_V}(?=\s*:)",
    rf"^(\s*(?:readonly|readwrite)-community(?:-v6)?:\s*\{{\s*){_V}(?=\s*:)",
    # host-side assignments
    rf"^(\s*(?:export\s+)?\w*(?:PASSWORD|PASSWD|SECRET|TOKEN|PASSKEY)\w*=){_V}",
]
_FILTERS = [{"regex": r, "replace": r"\1" + REMOVED.replace("\\", "\\\\")} for r in _LINE_RULES]

#: JSON key/value pairs anywhere (SONiC config_db, eAPI / NX-API replies)
_JSON_VALUE = re.compile(
    r'("(?:[A-Za-z_-]*(?:passkey|password|passwd|secret|auth_key|priv_key|community_string)[A-Za-z_-]*)"\s*:\s*)'
    r'"(?:[^"\\]|\\.)*"',
    re.IGNORECASE,
)
_JSON_LINES = re.compile(r"""(\\n|["']\s*:\s*["'])""")
#: the community names of a SONiC SNMP_COMMUNITY table are its keys
_SNMP_TABLE = re.compile(r'"(?:SNMP_COMMUNITY|readonly-community|readwrite-community)(?:-v6)?"\s*:\s*\{')
#: NETCONF XML (Junos)
_XML = re.compile(
    r"(<(encrypted-password|secret|authentication-key|simple-password|pre-shared-key|ascii-text|"
    r"hexadecimal-text)>)[^<]*(</\2>)"
)
_XML_COMMUNITY = re.compile(r"(<community>\s*<name>)[^<]*(</name>)")


def _snmp_keys(text: str) -> str:
    """Rename the keys of each ``"SNMP_COMMUNITY": {...}`` object (SONiC; NVUE ``readonly-community`` in its
    JSON) - the communities - keeping the JSON valid."""
    out, pos = [], 0
    for m in _SNMP_TABLE.finditer(text):
        if m.start() < pos:
            continue
        i, depth, n = m.end(), 1, 0
        out.append(text[pos:i])
        while i < len(text) and depth:
            c = text[i]
            if c == '"':
                j = i + 1
                while j < len(text) and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                after = text[j + 1 : j + 40].lstrip()
                if depth == 1 and after.startswith(":"):
                    n += 1
                    out.append(f'"{REMOVED}-{n}"')
                else:
                    out.append(text[i : j + 1])
                i = j + 1
                continue
            depth += c == "{"
            depth -= c == "}"
            out.append(c)
            i += 1
        pos = i
    out.append(text[pos:])
    return "".join(out)


def redact(text: str) -> str:
    """``text`` (a config, a read-back bundle, a log line) with every device secret replaced by ``<removed>``."""
    # imported here: netutils' sanitizer brings in jinja2, a cost every CLI start would pay (the session log
    # imports this module) although most runs never redact anything
    from netutils.config.clean import sanitize_config

    if "\\n" in text:  # a config inside a JSON string (an API reply in a debug log): a line starts after \n
        parts = _JSON_LINES.split(text)  # or at the string's opening quote
        text = "".join(p if i % 2 else sanitize_config(p, _FILTERS) for i, p in enumerate(parts))
    text = sanitize_config(text, _FILTERS)
    if '"' in text:
        text = _JSON_VALUE.sub(lambda m: f'{m.group(1)}"{REMOVED}"', text)
        if "SNMP_COMMUNITY" in text or "-community" in text:
            text = _snmp_keys(text)
    if "<" in text:
        text = _XML_COMMUNITY.sub(rf"\1{REMOVED}\2", _XML.sub(rf"\1{REMOVED}\3", text))
    return text


__all__ = ["REMOVED", "redact"]
