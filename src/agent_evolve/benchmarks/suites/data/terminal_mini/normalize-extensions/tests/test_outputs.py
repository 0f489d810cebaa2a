from pathlib import Path

PHOTOS = Path("/app/photos")


def test_names():
    assert sorted(p.name for p in PHOTOS.iterdir()) == [
        "Forest Walk.jpg", "beach.jpg", "city.jpg", "logo.png", "mountain.jpg", "notes.txt"]


def test_contents_kept():
    assert (PHOTOS / "Forest Walk.jpg").read_text() == "jpeg-bytes-3\n"
    assert (PHOTOS / "beach.jpg").read_text() == "jpeg-bytes-1\n"
