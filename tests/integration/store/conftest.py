from tests.pgserver import postgres

__all__ = ["postgres"]
