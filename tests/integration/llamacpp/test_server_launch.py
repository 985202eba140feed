"""``python -m specverdict.engines.xllamacpp_server``: llama-server's flags onto llama.cpp's
``common_params``, refusals in one line, start-up failures with llama.cpp's own error line, and a
clean stop on SIGTERM."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import Any

import gguf
import httpx
import pytest
import xllamacpp  # type: ignore[import-not-found]

from specverdict.campaign import build_plan, parse_campaign
from specverdict.engines.launcher import LaunchedServer, free_port
from specverdict.engines.llamacpp import LlamaCppAdapter
from specverdict.engines.xllamacpp_server import UsageError, common_params, parse
from specverdict.errors import EngineStartError
from tests.integration.llamacpp.conftest import SERVER, THREADS

CAMPAIGN = """\
name: flags
engine: {{kind: llamacpp, launch: {{}}}}
model: {{family: specverdict-reference, served_name: reference-target, path: target.gguf}}
quantization: fp32
candidates:
  - {{method: draft_model, k: 4, draft: draft.gguf}}
  - {{method: ngram, k: 8, params: {{spec_ngram_simple_size_n: 3, spec_ngram_simple_min_hits: 2}}}}
  - {{method: ngram, k: 6, params: {{spec_type: ngram-mod, spec_ngram_mod_n_min: 2}}}}
stages:
  function: {{suite: builtin-code@1, samples: {{first: 2}}}}
sampling: {{temperature: 0.0, max_tokens: 16, seed: 0}}
"""


def params_for(argv: list[str]) -> Any:
    return common_params(parse(argv), xllamacpp)


def test_the_adapters_builtin_llama_server_command_maps_onto_common_params() -> None:
    plan = build_plan(parse_campaign(CAMPAIGN.format(), Path("flags.yaml")))
    adapter = LlamaCppAdapter()
    commands = [
        adapter.builtin_command(run, "target.gguf", "127.0.0.1", 8123, ".") for run in plan.runs
    ]
    assert all(c is not None and c[0] == "llama-server" for c in commands)
    base, draft, ngram, mod = (params_for(c[1:]) for c in commands if c is not None)
    assert base.model.path == "target.gguf" and base.port == 8123
    assert base.hostnames == ["127.0.0.1"] and base.endpoint_metrics is True
    assert base.model_alias == {"reference-target"}
    none = xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_NONE
    assert list(base.speculative.types) == [none]
    simple = xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE
    assert list(draft.speculative.types) == [simple]
    assert draft.speculative.draft.mparams.path == "draft.gguf"
    assert draft.speculative.draft.n_max == 4
    kind = xllamacpp.common_speculative_type
    assert list(ngram.speculative.types) == [kind.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]
    assert ngram.speculative.ngram_simple.size_m == 8
    assert ngram.speculative.ngram_simple.size_n == 3
    assert ngram.speculative.ngram_simple.min_hits == 2
    assert list(mod.speculative.types) == [kind.COMMON_SPECULATIVE_TYPE_NGRAM_MOD]
    assert (mod.speculative.ngram_mod.n_max, mod.speculative.ngram_mod.n_min) == (6, 2)
    # llama.cpp's CPU defaults: no layer offloaded, threads from the usable cores
    assert base.n_gpu_layers == 0 and base.cpuparams.n_threads >= 1
    assert base.cpuparams_batch.n_threads == base.cpuparams.n_threads


def test_common_flags_and_aliases() -> None:
    p = params_for(
        shlex.split(
            "-m a.gguf -c 512 -np 2 -ngl 0 -t 1 -tb 2 -s 7 --host 0.0.0.0 --port 0 -a x,y "
            "-md d.gguf --spec-type draft-simple,ngram-simple --spec-draft-n-max 2 "
            "--spec-draft-n-min 1 --draft-p-min 0.5 --no-warmup --jinja -fa off"
        )
    )
    assert (p.n_ctx, p.n_parallel, p.n_gpu_layers) == (512, 2, 0)
    assert (p.cpuparams.n_threads, p.cpuparams_batch.n_threads) == (1, 2)
    assert p.speculative.draft.cpuparams.n_threads == 1  # the draft follows -t
    assert p.sampling.seed == 7 and p.hostnames == ["0.0.0.0"] and p.port == 0
    assert p.model_alias == {"x", "y"} and p.warmup is False and p.use_jinja is True
    assert len(p.speculative.types) == 2
    assert (p.speculative.draft.n_max, p.speculative.draft.n_min) == (2, 1)
    assert p.speculative.draft.p_min == pytest.approx(0.5)
    assert p.flash_attn_type == xllamacpp.llama_flash_attn_type.LLAMA_FLASH_ATTN_TYPE_DISABLED
    # llama.cpp reads "_" as "-" in long flags
    assert params_for(["-m", "a.gguf", "--ctx_size", "64"]).n_ctx == 64


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--draft-max", "4"],
            "--draft-max: the argument has been removed. use --spec-draft-n-max or "
            "--spec-ngram-mod-n-max",
        ),
        (["--draft-min", "1"], "use --spec-draft-n-min or --spec-ngram-mod-n-min"),
        (["--spec-ngram-size-n", "3"], "use the respective --spec-ngram-*-size-n"),
        (["--spec-ngram-size-m", "8"], "use the respective --spec-ngram-*-size-m"),
        (["--frobnicate"], "invalid argument: --frobnicate"),
        (["--port"], "--port: expected value for argument"),
        (["--port", "http"], "--port 'http': expected an integer"),
        (["--port", "70000"], "--port 70000: expected 0..65535"),
        (["--spec-type", "eagle"], "unknown speculative type: eagle"),
        (["--spec-type", "draft-simple"], "--spec-type draft-simple needs a draft model"),
        (["--model=a.gguf"], "invalid argument: --model=a.gguf"),
    ],
)
def test_refused_command_lines_name_the_flag(argv: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=None) as exc:
        parse(["-m", "a.gguf", *argv])
    assert message in str(exc.value)


def test_refusals_are_one_line_with_exit_code_2() -> None:
    for argv in (["-m", "a.gguf", "--draft-max", "4"], ["--metrics"], ["-m", "a.gguf", "-x"]):
        done = subprocess.run(
            [*SERVER, *argv], check=False, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2, done
        assert done.stderr.startswith("xllamacpp-server: error: ") and done.stderr.count("\n") == 1
    assert (
        "-m/--model is required"
        in subprocess.run(
            [*SERVER, "--metrics"], check=False, capture_output=True, text=True, timeout=60
        ).stderr
    )


def strip_tensor(src: Path, dst: Path, drop: str) -> None:
    """A copy of a GGUF file without one tensor: what a broken converter leaves."""
    reader = gguf.GGUFReader(src)
    writer = gguf.GGUFWriter(dst, str(reader.fields["general.architecture"].contents()))
    for name, f in reader.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture":
            continue
        writer.add_key_value(name, f.contents(), f.types[0], f.types[1] if f.types[1:] else None)
    for tensor in reader.tensors:
        if tensor.name != drop:
            writer.add_tensor(tensor.name, tensor.data, raw_dtype=tensor.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def test_a_gguf_without_a_tensor_fails_start_up_with_llamacpps_error_quoted(
    gguf_dir: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "target.gguf"
    strip_tensor(gguf_dir / "target.gguf", broken, "blk.2.ffn_up.weight")
    port = free_port()
    log = tmp_path / "engine.log"
    server = LaunchedServer(
        [*SERVER, "-m", str(broken), "--port", str(port), *THREADS],
        f"http://127.0.0.1:{port}",
        log_path=log,
    )
    with pytest.raises(EngineStartError) as exc:
        server.start()
    message = str(exc.value)
    assert "engine exited with code 1 during start-up" in message
    cause = "check_tensor_dims: tensor 'blk.2.ffn_up.weight' not found"
    assert "first error: xllamacpp-server: Error: the server did not start: " in message
    assert cause in message.split("first error:", 1)[1].split(";", 1)[0]
    # llama.cpp's own line, as it logged it, is in the kept log
    assert any(
        " E llama_model_load: error loading model: " + cause in line
        for line in log.read_text().splitlines()
    )


def test_a_draft_gguf_without_a_tensor_fails_start_up_too(gguf_dir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "draft.gguf"
    strip_tensor(gguf_dir / "draft.gguf", broken, "output_norm.weight")
    port = free_port()
    command = [*SERVER, "-m", str(gguf_dir / "target.gguf"), "--port", str(port), *THREADS]
    command += ["--spec-type", "draft-simple", "-md", str(broken)]
    with pytest.raises(EngineStartError, match=r"tensor 'output_norm\.weight' not found"):
        LaunchedServer(command, f"http://127.0.0.1:{port}").start()


def test_serves_until_sigterm_and_exits_0(gguf_dir: Path) -> None:
    port = free_port()
    server = LaunchedServer(
        [*SERVER, "-m", str(gguf_dir / "draft.gguf"), "--port", str(port), *THREADS],
        f"http://127.0.0.1:{port}",
    ).start()
    assert httpx.get(server.base_url + "/health").json() == {"status": "ok"}
    proc = server.process
    assert proc is not None
    server.stop(grace_s=5.0)
    assert proc.returncode == 0  # SIGTERM ended it, not the SIGKILL after the grace period
