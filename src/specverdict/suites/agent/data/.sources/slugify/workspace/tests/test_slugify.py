from slug import slugify


def test_slug():
    assert slugify('Hello Big World') == 'hello-big-world'
