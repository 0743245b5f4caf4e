"""The acceptance baseline of a fabric: a test plan from the intent, a verdict on its results, a BOM."""

from roceconf.acceptance import rules as _rules  # noqa: F401 - registers RC400-RC413
