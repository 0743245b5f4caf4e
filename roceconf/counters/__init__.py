"""The counter snapshot: the vendor-neutral counters every platform's ``counters.py`` parses its outputs into
(``model``), the tolerant text readers those parsers share (``parsing``) and the host NIC name-table mechanics
(``hostnic``).

A bottom layer beside ``roceconf.state``: the platforms read counters into it, ``roceconf.health`` judges it.
It imports nothing from roceconf above itself.
"""
