from rowparse.rows import parse_row

__all__ = ["parse_row"]
