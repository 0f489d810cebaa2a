from moneyfmt.format import format_money

__all__ = ["format_money"]
