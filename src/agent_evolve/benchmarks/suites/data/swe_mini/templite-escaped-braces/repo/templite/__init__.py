from templite.render import render

__all__ = ["render"]
