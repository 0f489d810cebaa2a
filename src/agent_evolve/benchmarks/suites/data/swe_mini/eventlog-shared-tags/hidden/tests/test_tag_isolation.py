from eventlog import EventLog


def test_tags_do_not_leak():
    log = EventLog()
    log.record("login").tags.append("admin")
    assert log.record("logout").tags == []


def test_separate_logs_do_not_share_tags():
    first, second = EventLog(), EventLog()
    first.record("a").tags.append("t")
    assert second.record("a").tags == []
