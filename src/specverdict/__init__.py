"""specverdict: is speculative decoding worth turning on for this workload?"""

__version__ = "0.1.0"
