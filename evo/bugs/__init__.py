"""What a developer does with a bug: replay it (:mod:`evo.bugs.replay`, on the machinery of
:mod:`evo.bugs.reproduce`), shrink its trace (:mod:`evo.bugs.shrink`) and re-run it on another
build (:mod:`evo.bugs.regress`)."""
