from pagekit.pages import page_count, paginate

__all__ = ["page_count", "paginate"]
