from leaderboard.board import Player, positions, rank

__all__ = ["Player", "positions", "rank"]
