from intervals.merge import merge

__all__ = ["merge"]
