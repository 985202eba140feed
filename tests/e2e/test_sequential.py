"""``run --until-decided`` against real reference servers: looks recorded in the registry,
segments of the same runs, resume, a design that cannot change, samples added outside the
looks counted as one more. That a sequential campaign decides as the fixed design does, with
fewer samples, is tested on the fixed design of ``test_quality_verdicts``."""

from __future__ import annotations

from pathlib import Path

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import Plan
from specverdict.run.runner import Runner
from specverdict.run.sequential import run_until_decided
from specverdict.store import SQLiteStore
from specverdict.verdict import campaign_verdicts
from tests.conftest import campaign_yaml, specverdict_cli

GATES = {"alpha": 0.05, "margin": 0.05, "min_speedup": 1.05}


def plan_of(root: Path, samples: int, max_tokens: int, repeats: int) -> Path:
    """A baseline and ``mtp`` k=2 on generated functions, timed on accel-2b's device clock."""
    path = root / "campaign.yaml"
    path.write_text(
        campaign_yaml(
            "sequential-e2e",
            device_model="accel-2b",
            device_clock="virtual",
            suite="synth-function@1",
            first=samples,
            max_tokens=max_tokens,
            concurrency=[8],
            repeats=repeats,
            baseline_repeats=2,
            gates=GATES,
        )
    )
    return path


def quiet(_: str) -> None:
    return None


def load(path: Path) -> Plan:
    return build_plan(parse_campaign(path.read_text(), path))


def test_looks_are_recorded_segments_extend_the_runs_and_a_rerun_resumes(tmp_path: Path) -> None:
    path = plan_of(tmp_path, 40, 48, 1)
    plan = load(path)
    db = tmp_path / "runs.db"
    store = SQLiteStore(db)
    runner = Runner(store, log=quiet)
    result = run_until_decided(runner, store, plan, batch=20, max_samples=40, log=quiet)
    (pair,) = result.pairs
    design = pair.design
    assert (design.batch, design.max_samples, design.looks) == (20, 40, 2)
    taken = design.taken
    assert [look.index for look in taken] == list(range(1, len(taken) + 1))
    assert [look.samples for look in taken] == [20, 40][: len(taken)]
    assert all(look.verdict is not None for look in taken)
    assert design.stopped is not None
    runs = {r.run_id: r for r in store.list_runs()}
    cand = [r for r in runs.values() if r.spec.speculation.method == "mtp"]
    base = [r for r in runs.values() if r.spec.speculation.method == "none"]
    assert len(cand) == 1 and len(base) == 2  # the same runs, extended: no run per look
    # one segment per look, each sending one batch; the stored design is the loop's
    assert [s.samples for s in cand[0].manifest.segments] == [20] * len(taken)
    assert cand[0].manifest.sequential == design
    assert len(store.samples(cand[0].run_id)) == taken[-1].samples
    for b in base:
        assert len(store.samples(b.run_id)) == taken[-1].samples
        assert b.manifest.sequential is None  # looks live on the candidate's executions
    # the verdict reads the pair at its last look, as recorded, and names its boundary
    (v,) = campaign_verdicts(store, plan)
    seq = v.reason("sequential")
    assert seq is not None, [str(r) for r in v.reasons]
    assert f"look {taken[-1].index} of 2" in seq.message
    assert "as recorded at that look" in seq.message
    assert v.verdict == taken[-1].verdict
    # a rerun resumes: nothing left to send, no look taken twice
    again = run_until_decided(runner, store, plan, batch=20, max_samples=40, log=quiet)
    assert again.pairs[0].design.taken == taken
    assert [s.samples for s in store.get_run(cand[0].run_id).manifest.segments] == [20] * len(taken)
    # the design cannot change once looks are taken: one line, exit code 2
    done = specverdict_cli(
        "run", str(path), "--db", str(db), "--until-decided", "--batch", "10", "--max-samples", "40"
    )
    assert done.returncode == 2, done.stderr
    assert "a sequential design cannot change once looks are taken" in done.stderr
    assert "--batch 20 --max-samples 40" in done.stderr
    bad = specverdict_cli("run", str(path), "--db", str(db), "--batch", "10")
    assert bad.returncode == 2 and "--batch is an option of --until-decided" in bad.stderr


def test_samples_added_outside_the_looks_count_as_one_more(tmp_path: Path) -> None:
    """The campaign file's ``sequential`` makes ``run`` sequential without the flag."""
    path = plan_of(tmp_path, 40, 32, 1)
    path.write_text(path.read_text() + "sequential: {batch: 20, max_samples: 20}\n")
    plan = load(path)
    db = tmp_path / "runs.db"
    done = specverdict_cli("run", str(path), "--db", str(db), timeout=600)
    assert done.returncode == 0, done.stderr
    assert "1 of 1 looks" in done.stdout
    store = SQLiteStore(db)
    runner = Runner(store, log=quiet)
    (cand,) = [r for r in store.list_runs() if r.spec.speculation.method == "mtp"]
    assert cand.manifest.sequential is not None and cand.manifest.sequential.looks == 1
    assert len(store.samples(cand.run_id)) == 20
    (v,) = campaign_verdicts(store, plan)
    assert "look 1 of 1" in v.reason("sequential").message  # type: ignore[union-attr]
    runner.run_plan(plan)  # a plain run sends the rest of the selection
    (v,) = campaign_verdicts(store, plan)
    seq = v.reason("sequential")
    assert seq is not None
    assert "look 2, past the 1 declared" in seq.message
    assert "count as one more look" in seq.message
    assert v.verdict != "ADOPT"
    assert "no speed decision" in v.reason("speed.tpot").message  # type: ignore[union-attr]
