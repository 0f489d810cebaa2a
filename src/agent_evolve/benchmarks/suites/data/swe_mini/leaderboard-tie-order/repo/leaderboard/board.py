"""Rank players by score."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Player:
    name: str
    score: int


def rank(players):
    """Players from the highest score to the lowest."""
    return sorted(players, key=lambda p: p.score)[::-1]


def positions(players):
    """Name -> position (1-based); tied scores share a position."""
    result = {}
    ranked = rank(players)
    for index, player in enumerate(ranked):
        if index and ranked[index - 1].score == player.score:
            result[player.name] = result[ranked[index - 1].name]
        else:
            result[player.name] = index + 1
    return result
