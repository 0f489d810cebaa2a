import pytest

from semver_lite import is_newer


def test_patch_bump():
    assert is_newer("1.2.4", "1.2.3")
    assert not is_newer("1.2.3", "1.2.4")


def test_bad_version():
    with pytest.raises(ValueError):
        is_newer("one", "1.0")
