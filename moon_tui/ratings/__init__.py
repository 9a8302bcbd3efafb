"""Ratings, standings and every player's record, derived from the saved game records.

The records stay the only truth: `game.py` reads what one finished game means (who took
part, in what order they finished, what each did), `model.py` turns that into new ratings
with openskill's Plackett-Luce model, and `board.py` holds what a leaderboard or a player
card shows. Pure Python: no textual, no asyncssh, no database (the server keeps them).
"""
