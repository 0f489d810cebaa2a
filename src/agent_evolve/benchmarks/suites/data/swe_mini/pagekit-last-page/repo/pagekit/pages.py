"""Split a list into numbered pages (1-based)."""


def page_count(total: int, per_page: int = 10) -> int:
    """How many pages `total` items fill."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    if total == 0:
        return 1
    return total // per_page + 1


def paginate(items: list, page: int, per_page: int = 10) -> list:
    """The items on `page` (1-based)."""
    pages = page_count(len(items), per_page)
    if page < 1 or page > pages:
        raise ValueError(f"page {page} out of range 1..{pages}")
    start = (page - 1) * per_page
    return items[start:start + per_page]
