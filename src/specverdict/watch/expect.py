"""Reading an expectations file (JSON or YAML, written by ``specverdict policy``) and choosing
the expectation a watch tests against."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from specverdict.campaign.model import FIXED_K_METHODS
from specverdict.errors import ConfigError
from specverdict.policy.model import Expectation, Expectations
from specverdict.watch.detect import Baseline


def load_expectations(path: Path) -> Expectations:
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    try:
        data: Any = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(
            f"{path}: not valid {path.suffix.lstrip('.') or 'YAML'} ({first})"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping with schema_version and expectations")
    if data.get("schema_version") != 1:
        raise ConfigError(
            f"{path}: schema_version: {data.get('schema_version')!r}: this version reads 1"
        )
    try:
        return Expectations.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"]) or "fields"
        raise ConfigError(f"{path}: {loc}: {err['msg'].lower()}") from None


def choose(
    exp: Expectations, stage: str | None, configuration: str | None, where: str
) -> tuple[Expectation, Baseline]:
    """The expectation of one stage and configuration (several load levels: the one with the
    lowest MAL bound, the widest dispersion), as the detector's baseline, with the k its engine
    ran when the expectation pinned one (the configuration-change alarm compares with it)."""
    rows = [
        e
        for e in exp.expectations
        if (stage is None or e.stage == stage)
        and (configuration is None or e.configuration == configuration)
    ]
    known = sorted({f"{e.stage}/{e.configuration}" for e in exp.expectations})
    if not rows:
        hint = (
            ""
            if known
            else ": the policy pins ADOPT configurations only; to watch one you run anyway, "
            "write its expectation with specverdict policy CAMPAIGN --configuration LABEL "
            "--out DIR"
        )
        raise ConfigError(
            f"{where}: no expectation for stage {stage or '*'} and configuration "
            f"{configuration or '*'} (known: {', '.join(known) or 'none'}){hint}"
        )
    kinds = {(e.stage, e.configuration) for e in rows}
    if len(kinds) > 1:
        raise ConfigError(
            f"{where}: several expectations match ({', '.join(sorted(f'{s}/{c}' for s, c in kinds))}): "
            "pass --stage and --configuration"
        )

    def low(e: Expectation) -> float:
        m = e.mean_accepted_length
        return m.lower if m.lower is not None else m.point

    chosen = min(rows, key=low)
    acc = chosen.acceptance
    mal = chosen.mean_accepted_length
    if low(chosen) <= 1.0:
        raise ConfigError(
            f"{where}: {chosen.stage}/{chosen.configuration}: the expected MAL's lower bound "
            f"{low(chosen):g} is not above 1: nothing to watch"
        )
    return chosen, Baseline(
        mal_lower=low(chosen),
        mal_upper=mal.upper,
        acceptance_lower=acc.lower if acc.lower is not None else acc.point,
        acceptance_upper=acc.upper,
        k=chosen.k,
        engine_k=chosen.engine_k,
        dispersion=max(e.dispersion for e in rows),
        fixed_k=chosen.configuration.split(" ", 1)[0] in FIXED_K_METHODS,
    )
