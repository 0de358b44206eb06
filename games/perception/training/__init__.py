"""Training and scoring of the perception models, apart from the models themselves.

One module per model (detector, encoder, imitation, texture, object_test_end) of plain
functions that train and score and return what they found; the ``evo vision`` commands
(:mod:`evo.cli.vision`) print it. They learn from what a game lends them in the shapes of
:mod:`games.perception.training.data`, so they import no game.
"""
