import subprocess

PROJECT = "/app/project"


def git(*args):
    return subprocess.run(["git", "-C", PROJECT, *args], capture_output=True, text=True, check=True).stdout


def test_one_commit_with_the_message():
    assert git("log", "--format=%s|%an|%ae").strip().splitlines() == ["initial import|Agent|agent@example.com"]


def test_tracked_files():
    assert sorted(git("ls-files").split()) == [".gitignore", "README.md", "src/main.py"]


def test_clean_tree():
    assert git("status", "--porcelain").strip() == ""
