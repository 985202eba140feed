"""Open-loop arrivals: request send times of a Poisson process, seeded.

Inter-arrival gaps are i.i.d. exponential with mean 1/rate, so the offered load does not depend
on how fast the engine answers (unlike a closed loop at fixed concurrency, where a slow engine
receives fewer requests and looks better than it is under real traffic).
"""

from __future__ import annotations

import numpy as np


def poisson_offsets(n: int, rate: float, seed: int) -> list[float]:
    """Send times in seconds after the start for ``n`` requests at ``rate`` requests/s."""
    if rate <= 0:
        raise ValueError(f"request rate must be positive, got {rate}")
    gaps = np.random.default_rng(seed).exponential(1.0 / rate, size=n)
    # The first request goes at once; later ones follow the sampled gaps.
    return [0.0, *np.cumsum(gaps[1:]).tolist()][:n]
