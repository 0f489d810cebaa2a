from slugs import slugify


def test_runs_collapse():
    assert slugify("Hello -- World!") == "hello-world"


def test_no_dashes_at_the_ends():
    assert slugify("  (draft) notes ") == "draft-notes"


def test_only_punctuation():
    assert slugify("!!!") == ""
