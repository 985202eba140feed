"""The order in which the betting test reads a pair's samples: a seeded random permutation.

The betting test of non-inferiority (``stats.sequential``) reads its running maximum of wealth
along a sequence, and Ville's inequality bounds that maximum only when the order does not
depend on the outcomes. A suite's own order is such a dependence in practice: HumanEval's
problems grow harder, a user's JSONL groups its hard cases, ``first: N`` is a prefix. Read in
id order, a candidate whose losses sit late in the suite (its mean drop at the margin) was ADOPT
4.85% of the time at n = 400 (target 2.5%): the wealth peaks on the early, equal samples and
the maximum remembers it. Shuffled, 0.75%.

So the samples are read in an order drawn at random when the candidate's execution was
created: ``RunManifest.order_seed`` (drawn by the runner), or, for an execution recorded
without one, its run id (a random uuid, drawn before any sample was measured). The key of a
sample is a keyed hash of its id, so the order of the samples a pair shares does not change
when samples are added or fail. At a sequential campaign's looks the samples measured by an
earlier look come first (the suite's first ``batch`` samples, then the next), so that each
look's sequence extends the last one's and the running maximum over looks is one sequence's.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from specverdict.records import RunManifest


def natural(sample_id: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that keeps a suite's order (``x/2`` before ``x/10``)."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", sample_id)
    )


def order_seed(run_id: str, manifest: RunManifest | None) -> str:
    """The seed of an execution's betting order: its recorded one, else its run id."""
    if manifest is not None and manifest.order_seed is not None:
        return f"seed:{manifest.order_seed}"
    return f"run:{run_id}"


def _key(seed: str, sample_id: str) -> bytes:
    return hashlib.blake2b(sample_id.encode(), key=seed.encode()[:64], digest_size=8).digest()


def betting_order(
    ids: Sequence[str],
    seed: str,
    selection: Sequence[str] = (),
    batch: int | None = None,
    looks: int | None = None,
) -> list[str]:
    """``ids`` in the betting test's order: by look (the position in ``selection``, the
    suite's order of the candidate's samples, divided by the sequential design's ``batch``,
    the last of its ``looks`` taking the remainder; one look without a design), then by the
    keyed hash of the id under ``seed``."""
    if batch is None or batch < 1:
        return sorted(ids, key=lambda i: _key(seed, i))
    where = {s: k for k, s in enumerate(sorted(selection or ids, key=natural))}
    last = len(where)
    cap = (last // batch) if looks is None else looks - 1

    def look(i: str) -> int:
        return min(where.get(i, last) // batch, cap)

    return sorted(ids, key=lambda i: (look(i), _key(seed, i)))
