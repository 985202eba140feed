"""Type-aware mutation of one value, guided by the profile of its position (generator 1's
rules, described in ``amplify.py``), and the canonical text of an input."""

from __future__ import annotations

import contextlib
import copy
import json
import math
import random
from typing import Any

from specverdict.suites.function.profile import Args, Profile, runs
from specverdict.suites.values import encode


def key(args: Args) -> str:
    """A canonical text of an input, for de-duplication."""
    return json.dumps(encode(list(args)), separators=(",", ":"))


class Mutator:
    """Type-aware mutation of one value, guided by the profile of its position."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def value(self, value: Any, profile: Profile) -> Any:
        t = type(value)
        if t is bool:
            seen = {v for v in profile.pool if type(v) is bool}
            return (not value) if len(seen) == 2 else value
        if t is int:
            return self._int(value, profile)
        if t is float:
            return self._float(value, profile)
        if t is str:
            return self._str(value, profile)
        if t in (list, tuple):
            return t(self._seq(list(value), profile))
        if t is set:
            return set(self._seq(list(value), profile))
        if t is dict:
            return self._dict(value, profile)
        return value

    def _int(self, v: int, p: Profile) -> int:
        lo, hi = int(p.lo if p.lo is not None else v), int(p.hi if p.hi is not None else v)
        r = self.rng
        options = [v + 1, v - 1, v + r.randint(2, 10), v - r.randint(2, 10), lo, hi, 0, -v]
        options += [v * 2, v // 2, r.randint(lo, hi) if lo <= hi else v]
        options = [o for o in options if lo <= o <= hi and o != v]
        return r.choice(options) if options else v

    def _float(self, v: float, p: Profile) -> float:
        lo, hi = float(p.lo if p.lo is not None else v), float(p.hi if p.hi is not None else v)
        r = self.rng
        span = (hi - lo) or 1.0
        options = [
            v + r.gauss(0, span / 10),
            r.uniform(lo, hi),
            round(v + r.uniform(-1, 1), 1),
            float(round(v)),
            lo,
            hi,
            v / 2,
            v * 2,
        ]
        if math.ceil(lo) <= math.floor(hi):  # a whole number as a float: a classic edge
            options.append(float(r.randint(math.ceil(lo), math.floor(hi))))
        options = [o for o in options if lo <= o <= hi and o != v]
        return r.choice(options) if options else v

    def _str(self, text: str, p: Profile) -> str:
        r = self.rng
        spans = [(c, s, n) for c, s, n in runs(text) if c != "other" and c in p.alphabet]
        if not spans:
            return text
        cls, start, length = r.choice(spans)
        letters = sorted(p.alphabet[cls])
        # Digit runs keep their length: numbers inside formats (dates, fractions, versions)
        # must keep their shape; letters may grow or shrink within the seeds' run lengths.
        op = "sub" if cls == "digit" else r.choice(("sub", "sub", "ins", "del"))
        if op == "ins" and length < p.run_hi[cls]:
            at = start + r.randint(1, length)  # never before a run's first character
            return text[:at] + r.choice(letters) + text[at:]
        if op == "del" and length > p.run_lo[cls]:
            at = start + r.randrange(length)
            return text[:at] + text[at + 1 :]
        at = start + r.randrange(length)
        choices = [c for c in letters if c != text[at]]
        if cls == "digit" and at == start and length > 1:
            choices = [c for c in choices if c != "0"]  # no new leading zero
        if not choices:
            return text
        return text[:at] + r.choice(choices) + text[at + 1 :]

    def _new_item(self, items: list[Any], p: Profile) -> Any:
        pool = items or (p.item.pool if p.item else [])
        if not pool:
            return None
        base = copy.deepcopy(self.rng.choice(pool))
        return self.value(base, p.item) if p.item else base

    def _seq(self, items: list[Any], p: Profile) -> list[Any]:
        r = self.rng
        ops = ["mutate", "mutate", "insert", "delete", "swap", "duplicate"]
        op = r.choice(ops) if items else "insert"
        if op == "mutate" and p.item is not None:
            i = r.randrange(len(items))
            items[i] = self.value(items[i], p.item)
        elif op == "insert":
            new = self._new_item(items, p)
            if new is not None or items:
                items.insert(r.randint(0, len(items)), new)
        elif op == "delete" and items:
            del items[r.randrange(len(items))]
        elif op == "swap" and len(items) > 1:
            i, j = r.sample(range(len(items)), 2)
            items[i], items[j] = items[j], items[i]
        elif op == "duplicate" and items:
            items.insert(r.randint(0, len(items)), copy.deepcopy(r.choice(items)))
        if p.ordered and p.count and len(items) > 1:
            with contextlib.suppress(TypeError):
                items.sort()
        return items

    def _dict(self, d: dict[Any, Any], p: Profile) -> dict[Any, Any]:
        r = self.rng
        out = dict(d)
        op = r.choice(("value", "key", "delete", "insert")) if out else "insert"
        keys = list(out)
        if op == "value" and p.value is not None:
            k = r.choice(keys)
            out[k] = self.value(out[k], p.value)
        elif op == "key" and p.key is not None:
            k = r.choice(keys)
            out[self.value(k, p.key)] = out.pop(k)
        elif op == "delete":
            del out[r.choice(keys)]
        elif op == "insert" and p.key is not None and p.value is not None and p.key.pool:
            k = self.value(copy.deepcopy(r.choice(p.key.pool)), p.key)
            out.setdefault(k, copy.deepcopy(r.choice(p.value.pool)))
        return out
