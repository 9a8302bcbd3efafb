"""Moon: a club game server for the domino game Moon."""
