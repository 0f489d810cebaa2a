from envflags import env_flag


def test_unset_gives_default(monkeypatch):
    monkeypatch.delenv("AE_FLAG", raising=False)
    assert env_flag("AE_FLAG") is False
    assert env_flag("AE_FLAG", default=True) is True


def test_one_is_true(monkeypatch):
    monkeypatch.setenv("AE_FLAG", "1")
    assert env_flag("AE_FLAG") is True
