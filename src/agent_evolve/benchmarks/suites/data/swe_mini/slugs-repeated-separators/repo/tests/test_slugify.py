from slugs import slugify


def test_simple_words():
    assert slugify("Hello World") == "hello-world"


def test_digits_kept():
    assert slugify("Top 10") == "top-10"
