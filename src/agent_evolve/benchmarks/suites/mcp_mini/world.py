"""The small, invented world of the shipped MCP server (a made-up outfitter), so a model can only know it by calling
the tools; the query functions are pure and return JSON-ready values."""

from __future__ import annotations

from typing import Any

ITEMS: dict[str, dict[str, Any]] = {
    "TW-114": {"name": "Tidewater thermos", "category": "drinkware", "unit_price": 27.90, "supplier": "Gullwing Metals",
               "weight_lb": 1.2, "length_in": 11, "stock": {"north": 38, "south": 27}},
    "HL-207": {"name": "Saltmarsh rain jacket", "category": "apparel", "unit_price": 18.40,
               "supplier": "Kestrel Textiles", "weight_lb": 0.9, "length_in": 30, "stock": {"north": 12, "south": 31}},
    "HL-310": {"name": "Anchor tool chest", "category": "hardware", "unit_price": 64.00, "supplier": "Gullwing Metals",
               "weight_lb": 3.5, "length_in": 22, "stock": {"north": 18, "south": 40}},
    "BW-052": {"name": "Breakwater lantern", "category": "lighting", "unit_price": 42.00, "supplier": "Lumen Quay",
               "weight_lb": 2.2, "length_in": 14, "stock": {"north": 15, "south": 9}},
    "DW-880": {"name": "Driftwood kayak paddle", "category": "water sports", "unit_price": 55.50,
               "supplier": "Cormorant Boatworks", "weight_lb": 2.6, "length_in": 84, "stock": {"north": 7, "south": 11}},
    "CM-019": {"name": "Blue ceramic mug", "category": "drinkware", "unit_price": 9.75, "supplier": "Tern Pottery",
               "weight_lb": 0.8, "length_in": 5, "stock": {"north": 96, "south": 47}},
}

PEOPLE: dict[str, dict[str, str]] = {
    "Priya Nandakumar": {"team": "Logistics", "office": "Gdansk", "email": "priya.nandakumar@harborlane.example",
                         "manager": "Tomas Rieger"},
    "Tomas Rieger": {"team": "Logistics", "office": "Rotterdam", "email": "tomas.rieger@harborlane.example",
                     "manager": "Ines Okafor"},
    "Ines Okafor": {"team": "Operations", "office": "Antwerp", "email": "ines.okafor@harborlane.example",
                    "manager": ""},
    "Lars Whitcombe": {"team": "Merchandising", "office": "Hull", "email": "lars.whitcombe@harborlane.example",
                       "manager": "Ines Okafor"},
    "Mara Lindqvist": {"team": "Supplier relations", "office": "Gothenburg",
                       "email": "mara.lindqvist@harborlane.example", "manager": "Ines Okafor"},
}

EVENTS: list[dict[str, Any]] = [
    {"id": "EV-301", "title": "Quarterly supplier review", "date": "2026-03-12", "start": "14:30", "room": "Kelp",
     "organiser": "Mara Lindqvist", "attendees": ["Mara Lindqvist", "Tomas Rieger", "Ines Okafor"]},
    {"id": "EV-302", "title": "Harbor safety drill", "date": "2026-03-17", "start": "09:00", "room": "Quay hall",
     "organiser": "Ines Okafor", "attendees": ["Ines Okafor", "Priya Nandakumar", "Lars Whitcombe"]},
    {"id": "EV-303", "title": "Catalogue photo shoot", "date": "2026-03-19", "start": "11:15", "room": "Studio B",
     "organiser": "Lars Whitcombe", "attendees": ["Lars Whitcombe", "Priya Nandakumar"]},
    {"id": "EV-304", "title": "Quarterly supplier review", "date": "2026-06-11", "start": "10:00", "room": "Dune",
     "organiser": "Mara Lindqvist", "attendees": ["Mara Lindqvist", "Tomas Rieger"]},
]

NOTES: dict[str, str] = {
    "Dock 4 closure": "Dock 4 closes for resurfacing. From 2026-04-02 all inbound pallets go to Dock 7 instead.",
    "Gullwing Metals account": "Our contact at Gullwing Metals is Ewan Thorsby; orders above 500 units need his "
                               "sign-off.",
    "Lantern recall": "Batch 22 of the Breakwater lantern had loose hinges; those units were returned to "
                      "Lumen Quay on 2026-02-20.",
    "Kestrel Textiles": "Kestrel Textiles ships the rain jackets from Leeds; lead time is 19 days.",
}

UNITS: dict[str, tuple[str, float]] = {
    "mm": ("length", 0.001), "cm": ("length", 0.01), "m": ("length", 1.0), "km": ("length", 1000.0),
    "in": ("length", 0.0254), "ft": ("length", 0.3048), "mi": ("length", 1609.344),
    "g": ("mass", 0.001), "kg": ("mass", 1.0), "lb": ("mass", 0.45359237), "oz": ("mass", 0.028349523125),
    "ml": ("volume", 0.001), "l": ("volume", 1.0), "gal": ("volume", 3.785411784),
}
"""Unit -> (dimension, size in the dimension's base unit: metre, kilogram, litre)."""


def _matches(query: str, *texts: str) -> bool:
    """Every word of the query occurs in one of the texts (case-insensitive)."""
    words = query.lower().split()
    haystack = " ".join(texts).lower()
    return bool(words) and all(word in haystack for word in words)


def search_items(query: str) -> list[dict[str, str]]:
    """Items whose name or category contains every word of the query, as {sku, name}."""
    return [{"sku": sku, "name": item["name"]} for sku, item in ITEMS.items()
            if _matches(query, item["name"], item["category"])]


def _item(sku: str) -> dict[str, Any]:
    item = ITEMS.get(sku.strip().upper())
    if item is None:
        raise ValueError(f"no item with SKU {sku!r}; find SKUs with search_items")
    return item


def item_details(sku: str) -> dict[str, Any]:
    """An item's name, category, unit price (EUR), supplier, unit weight (lb) and length (in)."""
    item = _item(sku)
    return {"sku": sku.strip().upper(), **{k: v for k, v in item.items() if k != "stock"}}


def stock_level(sku: str) -> dict[str, int]:
    """Units of an item in stock per warehouse (north, south)."""
    return dict(_item(sku)["stock"])


def find_person(name: str) -> dict[str, str]:
    """A staff member's team, office, email and manager, by full or partial name."""
    found = [person for person in PEOPLE if _matches(name, person)]
    if len(found) != 1:
        raise ValueError(f"{len(found)} people match {name!r}; known: {', '.join(PEOPLE)}" if found
                         else f"nobody matches {name!r}")
    return {"name": found[0], **PEOPLE[found[0]]}


def search_events(query: str, date: str = "") -> list[dict[str, Any]]:
    """Calendar events whose title contains every word of the query, optionally on one date (YYYY-MM-DD)."""
    return [dict(event) for event in EVENTS if _matches(query, event["title"]) and date in ("", event["date"])]


def search_notes(query: str) -> list[str]:
    """Titles of the notes whose title or text contains every word of the query."""
    return [title for title, text in NOTES.items() if _matches(query, title, text)]


def read_note(title: str) -> str:
    """The text of a note, by its exact title."""
    for known, text in NOTES.items():
        if known.lower() == title.strip().lower():
            return text
    raise ValueError(f"no note titled {title!r}; find titles with search_notes")


def convert_units(value: float, from_unit: str, to_unit: str) -> float:
    """`value` in `from_unit` expressed in `to_unit` (length, mass or volume), rounded to 4 decimals."""
    source, target = UNITS.get(from_unit.strip().lower()), UNITS.get(to_unit.strip().lower())
    if source is None or target is None:
        raise ValueError(f"unknown unit; known: {', '.join(UNITS)}")
    if source[0] != target[0]:
        raise ValueError(f"cannot convert {source[0]} ({from_unit}) to {target[0]} ({to_unit})")
    return round(value * source[1] / target[1], 4)
