"""``roceconf cabling``: the LLDP neighbours of every device compared with the intent's links (RC500-RC505).

* :mod:`.rules`: the rule IDs, registered in the one catalogue (``docs/rules.md``);
* :mod:`.verdict`: neighbours + intent -> one verdict per link end and per link;
* :mod:`.collect`: live reads (drift's inventory and collection path) and saved ``DIR/<device>.lldp.json``;
* :mod:`.report`: text, JSON, Markdown and JUnit through the shared report layer.
"""

from roceconf.cabling import rules as _rules  # noqa: F401 - registers RC500-RC505
