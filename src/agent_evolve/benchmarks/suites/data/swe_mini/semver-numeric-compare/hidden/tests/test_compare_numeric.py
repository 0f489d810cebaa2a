from semver_lite import is_newer


def test_two_digit_minor():
    assert is_newer("1.10.0", "1.9.2")
    assert not is_newer("1.9.2", "1.10.0")


def test_missing_part_is_zero():
    assert not is_newer("1.2", "1.2.0")
    assert not is_newer("1.2.0", "1.2")
    assert is_newer("1.2.1", "1.2")
