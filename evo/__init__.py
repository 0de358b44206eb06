"""The engine: the parts of the search (:mod:`evo.search`), running an experiment
(:mod:`evo.run`), reports (:mod:`evo.report`), bug reproduction (:mod:`evo.bugs`), test plans
(:mod:`evo.plans`) and the command line (:mod:`evo.cli`)."""

from games.core.moved import install as install_moved

# Modules that moved (0.2, issue 27): old names in YAMLs, entry points and run directories
# still import, with a DeprecationWarning (games/core/moved.py).
install_moved({
    "evo.policy": "evo.search.policy",
    "evo.agents": "evo.search.agents",
    "evo.operators": "evo.search.operators",
    "evo.explore.cells": "evo.search.explore.cell_archive",
    "evo.explore": "evo.search.explore",
    "evo.finetune": "evo.search.finetune",
    "evo.rollout": "evo.search.play",
    "evo.tasks": "evo.search.tasks",
    "evo.probe": "evo.search.probe",
    "evo.config": "evo.run.config",
    "evo.game_config": "evo.run.game_config",
    "evo.user_paths": "evo.run.user_paths",
    "evo.extras": "evo.run.extras",
    "evo.checkpoint": "evo.run.checkpoint",
    "evo.rundir": "evo.run.rundir",
    "evo.game_facts": "evo.run.game_facts",
    "evo.built": "evo.run.built",
    "evo.parallel": "evo.run.parallel",
    "evo.progress": "evo.run.progress",
    "evo.scalars": "evo.run.scalars",
    "evo.reaper": "evo.run.reaper",
    "evo.players": "evo.run.players",
    "evo.html_report": "evo.report.html",
    "evo.plots": "evo.report.plots",
    "evo.park_map": "evo.report.scene_map",
    "evo.report.park_map": "evo.report.scene_map",
    "evo.video_frames": "evo.report.video_frames",
    "evo.video": "evo.report.video",
    "evo.compare": "evo.report.compare",
    "evo.stats": "evo.report.stats",
    "evo.studies": "evo.report.studies",
    "evo.replay": "evo.bugs.replay",
    "evo.reproduce": "evo.bugs.reproduce",
    "evo.shrink": "evo.bugs.shrink",
    "evo.regress": "evo.bugs.regress",
    "evo.plans.cli": "evo.cli.plans",
    "evo.traces_cli": "evo.cli.traces",
    "evo.vision_cli": "evo.cli.vision",
    "evo.plans.validation": "oracles.action_checks",
})
