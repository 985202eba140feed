from cachekit import LRUCache


def test_evicts_oldest():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)
    assert cache.get("a") is None and cache.get("c") == 3 and len(cache) == 2


def test_default():
    assert LRUCache(1).get("x", 7) == 7
