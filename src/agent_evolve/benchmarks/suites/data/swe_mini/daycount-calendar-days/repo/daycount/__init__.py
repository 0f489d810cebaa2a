from daycount.days import days_between

__all__ = ["days_between"]
