import os
import subprocess

SCRIPT = "/app/bin/greet"


def test_executable():
    assert os.access(SCRIPT, os.X_OK)


def test_with_name():
    assert subprocess.run([SCRIPT, "Ann"], capture_output=True, text=True).stdout == "Hello, Ann!\n"


def test_without_name():
    assert subprocess.run([SCRIPT], capture_output=True, text=True).stdout == "Hello, world!\n"
