"""The engine: the parts of the search (:mod:`evo.search`), running an experiment
(:mod:`evo.run`), reports (:mod:`evo.report`), bug reproduction (:mod:`evo.bugs`), test plans
(:mod:`evo.plans`) and the command line (:mod:`evo.cli`)."""
