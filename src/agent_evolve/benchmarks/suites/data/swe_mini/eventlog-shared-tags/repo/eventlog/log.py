"""An in-memory event log."""

from dataclasses import dataclass


@dataclass
class Event:
    name: str
    tags: list


class EventLog:
    def __init__(self):
        self.events = []

    def record(self, name, tags=[]):
        """Append an event and return it."""
        event = Event(name, tags)
        self.events.append(event)
        return event

    def named(self, name):
        return [e for e in self.events if e.name == name]
