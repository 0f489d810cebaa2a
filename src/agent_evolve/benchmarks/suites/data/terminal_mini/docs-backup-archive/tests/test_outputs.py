import tarfile


def test_archive_members():
    with tarfile.open("/app/backup.tar.gz", "r:gz") as archive:
        files = sorted(m.name for m in archive.getmembers() if m.isfile())
    assert files == ["docs/guide/intro.md", "docs/guide/setup.md", "docs/index.md"]


def test_content():
    with tarfile.open("/app/backup.tar.gz", "r:gz") as archive:
        assert archive.extractfile("docs/index.md").read() == b"# Docs\n"
