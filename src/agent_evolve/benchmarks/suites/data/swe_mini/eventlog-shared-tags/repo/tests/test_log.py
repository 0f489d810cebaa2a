from eventlog import EventLog


def test_record_keeps_order():
    log = EventLog()
    log.record("a")
    log.record("b", ["x"])
    assert [e.name for e in log.events] == ["a", "b"]


def test_explicit_tags():
    log = EventLog()
    assert log.record("a", ["x", "y"]).tags == ["x", "y"]
    assert len(log.named("a")) == 1
