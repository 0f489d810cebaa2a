from eventlog.log import Event, EventLog

__all__ = ["Event", "EventLog"]
