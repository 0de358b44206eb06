"""Seeing objects in frames: detectors, the object masks and encoders made from their boxes,
and the texture judge of the visual oracle (PPGTA's pixel pipeline).

Nothing here knows evolution. Games do not import this package either: detectors and
encoders reach an agent as observation wrappers (:mod:`games.core.wrappers`), and objectives and
oracles import what they need from here. Small models trained on this machine ship in
``weights/`` with the command that retrains them (``evo vision train ...``).
"""
