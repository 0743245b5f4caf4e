"""Fabric health from counters: read counters twice or more, evaluate rates against the intent (RC3xx).

Importing this package registers the RC3xx rules in ``roceconf.intent.rules.RULES``.
"""

from roceconf.counters.model import PortCounters, Snapshot
from roceconf.health import rules  # noqa: F401 - registers the rules
from roceconf.health.evaluate import DeviceHealth, Finding, HealthReport, PortHealth, evaluate

__all__ = ["DeviceHealth", "Finding", "HealthReport", "PortCounters", "PortHealth", "Snapshot", "evaluate"]
