"""What an agent sees: the small models that run on a game's frames while it plays, and the
observation wrappers that run them (PPGTA's pixel pipeline).

- the object detector (``detector``) and the ``detect`` wrapper, its OD mask (``detect_wrapper``);
- the frame encoder (``encoder``) and the ``encode`` wrapper (``encode_wrapper``); both
  wrappers' frame work on a GPU (``device_frames``);
- the visual oracle's texture judge (``texture``);
- the imitation policy (``imitation``) and the head that ends its object tests
  (``object_test_end``);
- demonstrations (``demos``) and how closely an executed test acts like them
  (``execution_quality``).

Nothing here knows evolution or a particular game. The models reach an agent as observation
wrappers (:mod:`games.core.wrappers`), objectives and oracles import what they need from here,
and a game lends the training (:mod:`games.perception.training`) its frames in that package's
shapes. Small models trained on this machine ship in ``weights/`` with the command that
retrains them (``evo vision train ...``).
"""
