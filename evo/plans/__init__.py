"""Explicit test plans: nodes and rules an agent follows, written by hand, recorded, or read
from text (:mod:`evo.plans.text`)."""
