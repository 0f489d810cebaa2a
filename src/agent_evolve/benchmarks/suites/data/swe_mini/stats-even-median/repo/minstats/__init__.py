from minstats.center import mean, median

__all__ = ["mean", "median"]
