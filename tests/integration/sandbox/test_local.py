"""``LocalSandbox`` on ordinary programs: outcomes, inputs, isolation facts, concurrency."""

from __future__ import annotations

import os
import time

import pytest

from specverdict.sandbox import Execution, Limits, LocalSandbox
from tests.integration.sandbox.conftest import SMALL


def test_isolation_names_the_mode(sandbox: LocalSandbox) -> None:
    assert sandbox.isolation.startswith(f"{sandbox.mode}: ")
    assert "audit hooks" in sandbox.isolation


def test_passed_means_exit_status_zero(sandbox: LocalSandbox) -> None:
    r = sandbox.run(Execution("print('hi')\n", limits=SMALL))
    assert (r.outcome, r.detail, r.exit_code, r.stdout, r.stderr) == ("passed", None, 0, "hi\n", "")
    assert not r.truncated and r.violations == ()
    assert 0 < r.wall_s < 2.0


def test_uncaught_exception_is_an_error_with_its_type(sandbox: LocalSandbox) -> None:
    program = "import json\njson.loads('{')\n"
    r = sandbox.run(Execution(program, limits=SMALL))
    assert (r.outcome, r.detail, r.exit_code) == ("error", "json.decoder.JSONDecodeError", 1)
    lines = r.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert "__main__.py" in lines[1]  # the bootstrap's own frame is not shown
    assert lines[-1].startswith("json.decoder.JSONDecodeError: ")


@pytest.mark.parametrize(
    "program",
    ["def f(:\n    pass\n", "if True:\npass\n", "x = 1\n\0\n"],
    ids=["syntax", "indent", "nul"],
)
def test_programs_that_do_not_compile(sandbox: LocalSandbox, program: str) -> None:
    r = sandbox.run(Execution(program, limits=SMALL))
    assert r.outcome == "syntax_error"
    assert r.detail is not None and ("Error" in r.detail)
    assert r.exit_code == 1


def test_stdin_files_and_imports(sandbox: LocalSandbox) -> None:
    program = (
        "import sys, helper\nfrom pkg import data\nprint(sys.stdin.readline().strip(), helper.X)\n"
        "print(data.Y, open('pkg/notes.txt').read())\nprint(sys.argv[0].endswith('__main__.py'))\n"
    )
    r = sandbox.run(
        Execution(
            program,
            files={
                "helper.py": "X = 41 + 1\n",
                "pkg/__init__.py": "",
                "pkg/data.py": "Y = 'y'\n",
                "pkg/notes.txt": "ünïcode",
            },
            stdin="first line\nsecond\n",
            limits=SMALL,
        )
    )
    assert r.outcome == "passed", r.stderr
    assert r.stdout == "first line 42\ny ünïcode\nTrue\n"


def test_environment_is_built_from_scratch(sandbox: LocalSandbox) -> None:
    program = (
        "import os, sys\nprint(sorted(os.environ))\nprint(os.getcwd() == os.environ['HOME'])\n"
    )
    r = sandbox.run(Execution(program, limits=SMALL))
    assert r.stdout.splitlines() == [
        "['HOME', 'LANG', 'PATH', 'PYTHONDONTWRITEBYTECODE', 'PYTHONHASHSEED', 'PYTHONUTF8', "
        "'TMPDIR']",
        "True",
    ]


def test_runs_as_an_unprivileged_uid_without_capabilities(sandbox: LocalSandbox) -> None:
    program = (
        "import os\nprint(os.getuid(), os.geteuid())\n"
        "status = open('/proc/self/status').read().split('\\n')\n"
        "print([l.split()[1] for l in status if l.startswith(('CapEff', 'CapPrm'))])\n"
    )
    r = sandbox.run(Execution(program, limits=SMALL))
    uid = str(sandbox.platform.uid if sandbox.platform.uid is not None else os.getuid())
    assert r.stdout.splitlines() == [f"{uid} {uid}", "['0000000000000000', '0000000000000000']"]
    if os.geteuid() == 0:
        assert uid == "65534"


def test_string_hashing_is_reproducible(sandbox: LocalSandbox) -> None:
    program = "print(hash('specverdict'), list({'a', 'b', 'c', 'd', 'e'}))\n"
    first = sandbox.run(Execution(program, limits=SMALL)).stdout
    assert first and sandbox.run(Execution(program, limits=SMALL)).stdout == first


def test_each_execution_starts_clean(sandbox: LocalSandbox) -> None:
    writer = "import os, random\nopen('state', 'w').write('x')\nprint(random.random())\n"
    reader = "import os, random\nprint(os.path.exists('state'), random.random())\n"
    a = sandbox.run(Execution(writer, limits=SMALL))
    b = sandbox.run(Execution(reader, limits=SMALL))
    assert a.outcome == b.outcome == "passed"
    assert b.stdout.split()[0] == "False"
    assert a.stdout.split()[-1] != b.stdout.split()[-1]  # random is seeded per execution


def test_run_many_keeps_order_and_runs_concurrently(sandbox: LocalSandbox) -> None:
    executions = [
        Execution(f"import time\ntime.sleep(0.4)\nprint({i})\n", limits=SMALL) for i in range(4)
    ]
    start = time.monotonic()
    results = sandbox.run_many(executions, workers=4)
    elapsed = time.monotonic() - start
    assert [r.stdout for r in results] == [f"{i}\n" for i in range(4)]
    assert elapsed < 4 * 0.4  # one after another would take at least 1.6 s


def test_bad_file_names_are_refused(sandbox: LocalSandbox) -> None:
    for name in ("../escape.py", "/etc/x", "", "__main__.py", "./__main__.py"):
        with pytest.raises(ValueError):
            sandbox.run(Execution("pass\n", files={name: ""}, limits=SMALL))


def test_disk_limit_bounds_the_directory(namespaces_sandbox: LocalSandbox) -> None:
    program = "import os\nfor i in range(100):\n    open(f'f{i}', 'wb').write(b'x' * (1 << 20))\n"
    limits = Limits(wall_s=5.0, cpu_s=2, file_size_mb=2, disk_mb=8)
    r = namespaces_sandbox.run(Execution(program, limits=limits))
    assert r.outcome == "error"
    assert "No space left on device" in r.stderr


def test_closed_sandbox_refuses_to_run() -> None:
    sb = LocalSandbox()
    directory = sb.directory
    sb.close()
    assert not os.path.exists(directory)
    with pytest.raises(RuntimeError):
        sb.run(Execution("pass\n"))


def test_ordinary_library_code_is_not_refused(sandbox: LocalSandbox) -> None:
    # The hook refuses replacing its own functions' code or defaults, not anyone's (namedtuple
    # sets a function's defaults); the kernel's filter leaves threads (clone3 falls back to
    # clone) and socketpair alone.
    program = (
        "import collections, concurrent.futures, os, socket, tempfile, threading\n"
        "P = collections.namedtuple('P', 'x y', defaults=(0,))\n"
        "def f(a=1):\n    return a\nf.__defaults__ = (2,)\n"
        "with concurrent.futures.ThreadPoolExecutor(4) as pool:\n"
        "    squares = sum(pool.map(lambda x: x * x, range(10)))\n"
        "a, b = socket.socketpair()\na.sendall(b'x')\n"
        "with tempfile.TemporaryDirectory() as d:\n    inside = d.startswith(os.getcwd())\n"
        "print(P(1), f(), squares, b.recv(1), inside)\n"
    )
    r = sandbox.run(Execution(program, limits=SMALL))
    assert (r.outcome, r.violations) == ("passed", ()), r.stderr
    assert r.stdout == "P(x=1, y=0) 2 285 b'x' True\n"
