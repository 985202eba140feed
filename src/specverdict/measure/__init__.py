"""Pure summaries of stored records: no I/O, no clocks, no printing."""

from specverdict.measure.summary import RunSummary, percentile, summarize_samples

__all__ = ["RunSummary", "percentile", "summarize_samples"]
