"""The mcp-mini tasks: questions about the server's world, each with the facts its answer needs (none in its
question; each takes one to three tool calls)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class McpMiniTask:
    """A question and the facts a correct answer states."""

    id: str
    question: str
    facts: tuple[str, ...]


TASKS: tuple[McpMiniTask, ...] = (
    McpMiniTask("thermos-stock", "How many units of the Tidewater thermos are in stock, counting both warehouses?",
                ("65",)),
    McpMiniTask("sku-price", "What is the item with SKU HL-207 called, and what is its unit price in EUR?",
                ("Saltmarsh rain jacket", "18.40")),
    McpMiniTask("manager-office", "Who is Priya Nandakumar's manager, and in which office does that manager work?",
                ("Tomas Rieger", "Rotterdam")),
    McpMiniTask("review-room", "In which room is the Quarterly supplier review on 2026-03-12 held, and at what time "
                               "does it start?", ("Kelp", "14:30")),
    McpMiniTask("chest-weight", "What do all the Anchor tool chests in the south warehouse weigh together, in "
                                "kilograms (one decimal)?", ("63.5",)),
    McpMiniTask("dock-closure", "According to the notes, which dock takes inbound pallets instead of Dock 4, and "
                                "from which date?", ("Dock 7", "2026-04-02")),
    McpMiniTask("jacket-warehouse", "Which warehouse holds more Saltmarsh rain jackets, and by how many units?",
                ("south", "19")),
    McpMiniTask("drill-organiser", "What is the email address of the organiser of the Harbor safety drill?",
                ("ines.okafor@harborlane.example",)),
    McpMiniTask("shoot-team", "Which team does the organiser of the Catalogue photo shoot belong to?",
                ("Merchandising",)),
    McpMiniTask("lantern-value", "What is the total value in EUR of the Breakwater lanterns in stock (unit price "
                                 "times units, both warehouses)?", ("1008",)),
    McpMiniTask("paddle-length", "How long is the Driftwood kayak paddle in centimetres?", ("213.36",)),
    McpMiniTask("supplier-contact", "Which supplier makes the Tidewater thermos, and who is our contact there "
                                    "according to the notes?", ("Gullwing Metals", "Ewan Thorsby")),
)
