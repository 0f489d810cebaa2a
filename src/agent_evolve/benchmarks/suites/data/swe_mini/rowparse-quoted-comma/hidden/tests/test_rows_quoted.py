from rowparse import parse_row


def test_quoted_comma():
    assert parse_row('ann,"Smith, Jr.",42') == ["ann", "Smith, Jr.", "42"]


def test_doubled_quotes():
    assert parse_row('x,"say ""hi"""') == ["x", 'say "hi"']
