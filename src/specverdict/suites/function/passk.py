"""pass@k and the failure breakdown of a function suite's scores.

pass@k is the unbiased estimator of Chen et al. 2021 ("Evaluating Large Language Models Trained
on Code", section 2.1): with ``n`` samples of a task of which ``c`` pass,

    pass@k = 1 - C(n - c, k) / C(n, k)
           = 1 - prod_{i = n - c + 1}^{n} (1 - k / i)        (the numerically stable form)

and 1 when ``n - c < k`` (every draw of k holds a passing sample). A suite's pass@k is the mean
over tasks; it is defined only when every task has at least ``k`` samples.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping

from specverdict.records import Score
from specverdict.suites.function.grade import read_detail


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimate for one task with ``c`` of ``n`` samples passing."""
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def mean_pass_at_k(counts: Mapping[str, tuple[int, int]], k: int) -> float | None:
    """Mean pass@k over tasks (``task -> (n, c)``); None when some task has fewer than ``k``
    samples or there are no tasks."""
    if not counts or any(n < k for n, _ in counts.values()):
        return None
    return sum(pass_at_k(n, c, k) for n, c in counts.values()) / len(counts)


def task_counts(
    results: Iterable[tuple[str, Score]], base_only: bool = False
) -> dict[str, tuple[int, int]]:
    """``task -> (samples, passing)`` from ``(task_id, score)`` pairs; with ``base_only`` a
    sample passes when its base cases do (``FunctionDetail.base_passed``)."""
    n: Counter[str] = Counter()
    c: Counter[str] = Counter()
    for task_id, score in results:
        n[task_id] += 1
        if base_only:
            detail = read_detail(score)
            c[task_id] += bool(detail.base_passed if detail is not None else score.passed)
        else:
            c[task_id] += score.passed
    return {t: (n[t], c[t]) for t in n}


def failure_class(score: Score) -> str:
    """``passed``, ``failed`` (wrong answer), ``syntax_error``, ``timeout``, ``no_code``, ...;
    runtime errors by type, as ``error:TypeError``."""
    if score.outcome == "error":
        detail = read_detail(score)
        kind = detail.error_type if detail is not None and detail.error_type else "unknown"
        return f"error:{kind}"
    return score.outcome


def failure_breakdown(scores: Iterable[Score]) -> dict[str, int]:
    """How many scores fall in each ``failure_class``, most frequent first."""
    counts = Counter(failure_class(s) for s in scores)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
