from calendarx.months import add_months

__all__ = ["add_months"]
