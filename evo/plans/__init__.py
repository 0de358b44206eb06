"""Explicit test plans (AGT): nodes, rules and action validations, and the agent that follows
them. A plan is written by hand in YAML (:func:`load_plan`) or read from text
(:mod:`evo.plans.text`), and run with :func:`run_plan` or ``evo plan run``."""

from evo.plans.agent import PlanAgent, PlanResult
from evo.plans.base import Condition, Node, Plan, Rule, Validation
from evo.plans.load import check_plan, load_plan, parse_plan
from evo.plans.run import run_plan

__all__ = ["Condition", "Node", "Plan", "PlanAgent", "PlanResult", "Rule", "Validation", "check_plan",
           "load_plan", "parse_plan", "run_plan"]
