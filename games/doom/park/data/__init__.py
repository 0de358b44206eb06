"""What the park lends the perception models (:mod:`games.perception`): labelled frames for the
detector, random play for the encoder, circling walks and the texture judge's crops,
demonstrations played by the navigator or by a person. :mod:`games.doom.park.data.source`
gathers them as the park's ``perception_data``, which the ``evo vision``, ``evo demos`` and
``evo record`` commands read from its registry entry.
"""
