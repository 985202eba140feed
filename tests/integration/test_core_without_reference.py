"""The core package without the ``reference`` extra: every module imports, the CLI validates
campaigns and judges stored runs, and launching the reference engine fails in one line.

Each check runs in a fresh interpreter whose meta-path refuses the extra's modules, as an
install without the extra would.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import specverdict
from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import Launch
from specverdict.engines.reference import ReferenceAdapter, launches_reference, require_extra
from specverdict.errors import ExtraMissingError
from specverdict.records import SampleRecord
from specverdict.reference import extra
from specverdict.store import SQLiteStore
from specverdict.verdict import EXIT_CODES
from tests.conftest import campaign_yaml

REPO = Path(__file__).resolve().parents[2]
PACKAGE = Path(specverdict.__file__).resolve().parent
DEMO = REPO / "examples" / "demo.yaml"

#: installs the blocking finder; fails when a blocked module was imported before it
PRELUDE = f"""
import importlib.abc
import sys

BLOCKED = frozenset({extra.MODULES!r})
early = sorted(m for m in sys.modules if m.partition(".")[0] in BLOCKED)
assert not early, f"imported before the block: {{early}}"


class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked)", name=name)
        return None


sys.meta_path.insert(0, Blocked())
"""

CAMPAIGN = campaign_yaml("no-extra", candidates=[{"method": "ngram", "k": 2}], warmup=None)


def blocked(code: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PRELUDE + code],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=cwd,
    )


def blocked_cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    code = f"sys.argv = ['specverdict', *{list(args)!r}]\n"
    code += "from specverdict.cli.main import main\nmain()\n"
    return blocked(code, cwd)


def is_script(path: Path) -> bool:
    """A file run as a child process (a call at module level, e.g. ``main()``), not imported."""
    body = ast.parse(path.read_text(), str(path)).body
    return any(isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) for n in body)


def imported_names(path: Path) -> set[str]:
    """The top-level packages a file's import statements name."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name.partition(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.partition(".")[0])
    return out


def core_files() -> list[Path]:
    """Every module of the package but the reference engine's own, the lab's (the trainer and
    the suites' generator: outside the harness, with the train extra) and ``__main__``; the
    suites' data trees (fixture programs under ``data/``) are data, not modules."""
    return [
        p
        for p in sorted(PACKAGE.rglob("*.py"))
        if p.relative_to(PACKAGE).parts[0] not in ("reference", "lab")
        and p.name != "__main__.py"
        and "data" not in p.relative_to(PACKAGE).parts
    ]


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(("specverdict", *parts))


def test_the_block_refuses_the_stack() -> None:
    proc = blocked("import fastapi\n")
    assert proc.returncode == 1 and "No module named 'fastapi' (blocked)" in proc.stderr
    assert extra.missing() == ()  # this interpreter has the extra


def test_every_core_module_imports_without_the_stack() -> None:
    files = core_files()
    scripts = [p for p in files if is_script(p)]
    # a file that acts when imported (a call at module level) has its imports checked only; the
    # sandbox's child scripts guard theirs with ``__name__``, so none is expected
    assert len(scripts) < 10, scripts
    for script in scripts:
        assert not imported_names(script) & set(extra.MODULES), script
    modules = [module_name(p) for p in files if p not in scripts]
    assert "specverdict.engines.reference" in modules and "specverdict.run.preflight" in modules
    assert len(modules) > 100
    code = "import importlib\n"
    code += f"for name in {modules!r}:\n    importlib.import_module(name)\n"
    code += "from specverdict.reference import extra\n"
    code += "assert extra.missing() == extra.MODULES, extra.missing()\n"
    code += "print('imported', len(BLOCKED))\n"
    proc = blocked(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "imported 5"


def test_help_and_campaign_validation_run_without_the_stack(tmp_path: Path) -> None:
    proc = blocked_cli("--help")
    assert proc.returncode == 0, proc.stderr
    assert "validate" in proc.stdout and "verdict" in proc.stdout
    proc = blocked_cli("validate", str(DEMO))
    assert proc.returncode == 0, proc.stderr
    assert "demo" in proc.stdout
    proc = blocked_cli("validate", str(DEMO), "--json")
    assert proc.returncode == 0, proc.stderr
    assert '"runs"' in proc.stdout


def _stored_registry(tmp_path: Path) -> tuple[Path, Path]:
    """A campaign file and a registry holding its two runs, written without an engine."""
    campaign = tmp_path / "no-extra.yaml"
    campaign.write_text(CAMPAIGN)
    plan = build_plan(parse_campaign(CAMPAIGN, campaign))
    db = tmp_path / "runs.db"
    store = SQLiteStore(db)
    try:
        for spec, e2e in zip(plan.runs, (0.5, 0.4), strict=True):
            run = store.create_run(spec, 0)
            for i in range(4):
                store.add_sample(
                    SampleRecord(
                        run_id=run.run_id,
                        sample_id=f"builtin-code/{i}",
                        status="ok",
                        text=f"return {i}\n",
                        finish_reason="stop",
                        prompt_tokens=20,
                        completion_tokens=8,
                        ttft_s=0.05,
                        e2e_s=e2e + 0.01 * i,
                        chunk_arrivals_s=(0.05, e2e + 0.01 * i),
                    )
                )
            segment = {"requests": 4, "answered": 4, "samples": 4, "failed": 0, "wall_s": 4 * e2e}
            store.update_run(run.run_id, status="completed", manifest={"segments": [segment]})
    finally:
        store.close()
    return campaign, db


def test_verdicts_and_reports_from_a_stored_registry_without_the_stack(tmp_path: Path) -> None:
    campaign, db = _stored_registry(tmp_path)
    proc = blocked_cli("verdict", str(campaign), "--db", str(db), "--json")
    assert proc.stderr == ""
    (verdict,) = json.loads(proc.stdout)["verdicts"]  # exit code: the verdict's (INCONCLUSIVE 3)
    assert proc.returncode == EXIT_CODES[verdict["verdict"]]
    assert "ngram" in json.dumps(verdict)
    out = tmp_path / "report"
    proc = blocked_cli("report", str(campaign), "--db", str(db), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (out / "index.html").read_text().startswith("<!doctype html>")


def _one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    (line,) = lines
    assert line.startswith(
        "specverdict: error: engine kind 'reference' needs the 'reference' extra"
    )
    assert line.endswith(f"install it with: {extra.INSTALL}")
    assert "missing: fastapi, uvicorn, tokenizers, safetensors, threadpoolctl" in line
    return line


def test_a_reference_run_without_the_extra_fails_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    _one_line_error(blocked_cli("run", str(DEMO), "--db", str(db)))
    assert not db.exists()  # refused before any run was recorded


def test_the_demo_without_the_extra_fails_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    _one_line_error(blocked_cli("demo", "--out", str(out)))
    assert not out.exists()


def test_the_adapter_refuses_to_build_a_launch_command_without_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = build_plan(parse_campaign(CAMPAIGN, Path("no-extra.yaml")))
    adapter = ReferenceAdapter()
    spec = plan.runs[1]
    assert adapter.problems(spec) == []
    assert adapter.launch_command(spec, None, 8000, None)[1:3] == [
        "-m",
        "specverdict.reference.server.cli",
    ]
    monkeypatch.setattr(extra, "missing", lambda: ("safetensors",))
    assert adapter.problems(spec) == []  # validation needs no extra
    with pytest.raises(ExtraMissingError, match=r"missing: safetensors\); install it") as exc:
        adapter.launch_command(spec, None, 8000, None)
    assert exc.value.exit_code == 2
    # a campaign's own launch command or an attached server needs no local extra
    own = Launch(command="python -m my.server --port {port}")
    assert adapter.launch_command(spec, own, 8000, None)[:2] == ["python", "-m"]
    assert launches_reference(plan.runs, None)
    assert not launches_reference(plan.runs, own)
    attached = [
        r.model_copy(update={"engine": r.engine.model_copy(update={"base_url": "http://h:1"})})
        for r in plan.runs
    ]
    assert not launches_reference(attached, None)
    with pytest.raises(ExtraMissingError):
        require_extra()


def test_the_reference_server_command_without_the_extra_fails_in_one_line() -> None:
    code = "from specverdict.reference.server.cli import main\nmain(['--port', '1'])\n"
    proc = blocked(code)
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("specverdict-reference: error: the reference engine needs the")
    assert line.endswith(f"install it with: {extra.INSTALL}")
    proc = blocked("from specverdict.reference.server.cli import main\nmain(['--help'])\n")
    assert proc.returncode == 0 and "--speculative-config" in proc.stdout
