"""Action validation for plans: the pre-action snapshot and the post-action check.

The one implementation lives in :mod:`oracles.validator`, where the ``validation`` oracle
reaches it too (oracles import nothing from ``evo``); the plan agent uses it from here.
"""

from oracles.validator import Validator, Verdict, event_kind, validation_signature

__all__ = ["Validator", "Verdict", "event_kind", "validation_signature"]
