from pathlib import Path

EXPECTED = """# server settings
host = 0.0.0.0
port = 9090
# debug output (also: debug_level)
debug = false
debug_level = 2
workers = 4
"""


def test_settings_changed_rest_kept():
    assert Path("/app/server.conf").read_text() == EXPECTED
