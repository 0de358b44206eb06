"""Gymnasium's classic-control games with injected bugs: CartPole with RELINE's performance
bugs (:mod:`games.classic.cartpole`)."""
