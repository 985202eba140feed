"""Per-run figures: pure summaries of stored records (``summary``, ``steps``) and a run's results
read from the registry (``results``)."""

from specverdict.measure.summary import RunSummary, percentile, summarize_samples

__all__ = ["RunSummary", "percentile", "summarize_samples"]
