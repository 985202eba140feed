from retrykit.backoff import delays


def retry(func, attempts=3, base=0.5, sleep=None):
    """Call func until it returns without raising; re-raise the last error."""
    for wait in delays(attempts - 1, base):
        try:
            return func()
        except Exception:
            if sleep is not None:
                sleep(wait)
    return func()
