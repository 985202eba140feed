"""Hostile programs: each gets its expected outcome, this process survives, nothing leaks.

Every test runs in both isolation modes (``sandbox`` fixture), and the fixture fails the test
when any process of the sandbox other than its zygote is still alive afterwards.
"""

from __future__ import annotations

import contextlib
import dataclasses
import dis
import os
import secrets
import shutil
import socket
import tempfile
import time
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from specverdict.sandbox import Execution, LocalSandbox
from tests.conftest import local_sandbox
from tests.integration.sandbox.conftest import SMALL, wait_until_gone


def run(sb: LocalSandbox, program: str, allow_subprocess: bool = False, **limits: object):
    return sb.run(
        Execution(
            program,
            limits=dataclasses.replace(SMALL, **limits),  # type: ignore[arg-type]
            allow_subprocess=allow_subprocess,
        )
    )


# -- processes ------------------------------------------------------------------------------
def test_fork_is_a_violation_by_default(sandbox: LocalSandbox) -> None:
    r = run(sandbox, "import os\nwhile True:\n    os.fork()\n")
    assert r.outcome == "sandbox_violation"
    assert r.detail == "starting a process (os.fork)"


@pytest.mark.parametrize(
    "program",
    [
        "import subprocess\nsubprocess.run(['true'])\n",
        "import os\nos.system('true')\n",
        "import os\nos.execv('/bin/true', ['true'])\n",
        # The private helper behind subprocess, called directly.
        "import _posixsubprocess\n_posixsubprocess.fork_exec()\n",
    ],
)
def test_starting_processes_is_a_violation_by_default(sandbox: LocalSandbox, program: str) -> None:
    r = run(sandbox, program)
    assert r.outcome == "sandbox_violation"
    assert r.detail is not None and r.detail.startswith("starting a process")


def test_fork_bomb_is_stopped_and_cleaned_up(sandbox: LocalSandbox) -> None:
    program = (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    )
    start = time.monotonic()
    r = run(sandbox, program, allow_subprocess=True, wall_s=1.0)
    assert r.outcome == "timeout"
    assert time.monotonic() - start < 1.0 + 4.0


def test_process_limit_binds(namespaces_sandbox: LocalSandbox) -> None:
    # Children sleep, so each one holds a slot; the program itself is one of the 8.
    program = (
        "import os, time\nn = 0\nfor i in range(100):\n    try:\n        pid = os.fork()\n"
        "    except BlockingIOError:\n        break\n    if pid == 0:\n        time.sleep(30)\n"
        "        os._exit(0)\n    n += 1\nprint(n)\n"
    )
    r = run(namespaces_sandbox, program, allow_subprocess=True, nproc=8)
    assert r.outcome == "passed", r.stderr
    assert r.stdout == "7\n"


@pytest.mark.parametrize(
    "program",
    [
        # A grandchild in a new session, still sleeping when the program ends.
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
        "        time.sleep(60)\n    os._exit(0)\nprint('done')\n",
        # A detached interpreter with a marker on its command line.
        "import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', "
        "'import time; time.sleep(60)', 'MARKER'], start_new_session=True,\n"
        "    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print('done')\n",
    ],
    ids=["double-fork-setsid", "detached-popen"],
)
def test_daemons_do_not_outlive_the_program(sandbox: LocalSandbox, program: str) -> None:
    marker = f"sbx-daemon-{secrets.token_hex(6)}"
    r = run(sandbox, program.replace("MARKER", marker), allow_subprocess=True)
    assert r.outcome == "passed", r.stderr
    assert r.stdout == "done\n"
    assert wait_until_gone(marker) == []


def test_daemons_do_not_outlive_a_timeout(sandbox: LocalSandbox) -> None:
    marker = f"sbx-daemon-{secrets.token_hex(6)}"
    program = (
        "import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', "
        f"'import time; time.sleep(60)', '{marker}'], start_new_session=True)\n"
        "time.sleep(60)\n"
    )
    r = run(sandbox, program, allow_subprocess=True, wall_s=1.0)
    assert r.outcome == "timeout"
    assert wait_until_gone(marker) == []


# -- time and memory ------------------------------------------------------------------------
def test_busy_loop_hits_the_cpu_or_wall_limit(sandbox: LocalSandbox) -> None:
    start = time.monotonic()
    r = run(sandbox, "while True:\n    pass\n", cpu_s=1, wall_s=3.0)
    assert r.outcome == "timeout"
    assert time.monotonic() - start < 3.0 + 4.0


def test_sleeping_program_hits_the_wall_limit(sandbox: LocalSandbox) -> None:
    r = run(sandbox, "import time\ntime.sleep(60)\n", wall_s=0.5)
    assert r.outcome == "timeout"
    assert r.detail == "wall clock limit 0.5 s"
    assert 0.5 <= r.wall_s < 4.0


@pytest.mark.parametrize(
    "program",
    [
        "x = bytearray(4 << 30)\n",
        "blocks = []\nwhile True:\n    blocks.append(bytearray(1 << 20))\n",
    ],
    ids=["at-once", "gradual"],
)
def test_memory_bomb_is_oom(sandbox: LocalSandbox, program: str) -> None:
    # The time limits are generous: this test is about classifying the memory limit, and on a
    # loaded machine 256 allocations with page touching can take longer than SMALL's 2 s wall.
    r = run(sandbox, program, address_space_mb=256, wall_s=15.0, cpu_s=10)
    assert r.outcome == "oom"
    assert r.detail == "MemoryError"


def test_recursion_limit_is_an_error(sandbox: LocalSandbox) -> None:
    r = run(sandbox, "def f():\n    return f()\nf()\n")
    assert r.outcome == "error"
    assert r.detail == "RecursionError"


def test_c_stack_overflow_is_killed_by_sigsegv(sandbox: LocalSandbox) -> None:
    program = (
        "import sys\nsys.setrecursionlimit(10**7)\nnested = []\nfor _ in range(10**5):\n"
        "    nested = [nested]\nrepr(nested)\n"
    )
    r = run(sandbox, program, wall_s=5.0)
    assert r.outcome == "killed"
    assert r.detail == "SIGSEGV"


# -- files ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "program",
    [
        "open(TARGET, 'w').write('x')\n",
        "import os\nos.close(os.open(TARGET, os.O_CREAT | os.O_WRONLY))\n",
        "import pathlib\npathlib.Path(TARGET).write_text('x')\n",
        "import os\nos.symlink(TARGET, 'link')\nopen('link', 'w').write('x')\n",
        "import os\nopen('mine', 'w').write('x')\nos.rename('mine', TARGET)\n",
        "import shutil\nopen('mine', 'w').write('x')\nshutil.copy('mine', TARGET)\n",
        "import os\nos.mkdir(TARGET)\n",
        "import os\nos.chdir('/tmp')\nopen(os.path.basename(TARGET), 'w').write('x')\n",
    ],
    ids=["open", "os.open", "pathlib", "symlink", "rename", "copy", "mkdir", "chdir-relative"],
)
def test_writing_outside_the_directory_is_a_violation(sandbox: LocalSandbox, program: str) -> None:
    # /tmp is world-writable: the kernel would let the sandbox uid write there.
    target = f"/tmp/sbx-outside-{secrets.token_hex(6)}"
    try:
        r = run(sandbox, program.replace("TARGET", repr(target)))
        assert r.outcome == "sandbox_violation", r.stderr
        assert target in (r.detail or "")
        assert not os.path.lexists(target)
    finally:
        if os.path.isdir(target):
            os.rmdir(target)
        elif os.path.lexists(target):
            os.unlink(target)


def test_kernel_keeps_unaudited_writes_out_of_shared_directories(
    namespaces_sandbox: LocalSandbox,
) -> None:
    # os.open with dir_fd raises an "open" event without the directory: the hook resolves the
    # name against the working directory and lets it pass. The read-only covers stop it.
    name = f"sbx-dirfd-{secrets.token_hex(6)}"
    program = (
        "import os\nfor d in ('/tmp', '/var/tmp', '/dev/shm'):\n    try:\n"
        f"        os.open({name!r}, os.O_CREAT | os.O_WRONLY, dir_fd=os.open(d, os.O_RDONLY))\n"
        "        print(d, 'written')\n    except OSError as e:\n        print(d, e.strerror)\n"
        "print(os.listdir('/tmp'))\n"
    )
    r = run(namespaces_sandbox, program)
    assert r.outcome == "passed", r.stderr
    lines = r.stdout.splitlines()
    assert lines[:3] == [f"{d} Read-only file system" for d in ("/tmp", "/var/tmp", "/dev/shm")]
    # Only the path to the execution's own directory exists in its /tmp.
    assert lines[3] == repr([os.path.basename(namespaces_sandbox.directory)])
    for d in ("/tmp", "/var/tmp", "/dev/shm"):
        assert not os.path.exists(os.path.join(d, name))


def test_files_written_inside_are_fine_and_bounded(sandbox: LocalSandbox) -> None:
    program = (
        "import os, tempfile\nopen('a.txt', 'w').write('x')\nos.mkdir('d')\n"
        "os.rename('a.txt', 'd/b.txt')\nwith tempfile.NamedTemporaryFile() as f:\n"
        "    f.write(b'y')\nopen('big', 'wb').write(b'z' * (2 << 20))\n"
    )
    r = run(sandbox, program, file_size_mb=1)
    assert r.outcome == "error"
    assert "File too large" in r.stderr
    assert r.violations == ()


# -- network --------------------------------------------------------------------------------
def test_no_connection_reaches_a_local_listener(sandbox: LocalSandbox) -> None:
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp,
    ):
        tcp.bind(("127.0.0.1", 0))
        tcp.listen()
        udp.bind(("127.0.0.1", 0))
        tcp_port, udp_port = tcp.getsockname()[1], udp.getsockname()[1]
        program = (
            "import socket\nfor attempt in range(2):\n    try:\n"
            f"        socket.socket().connect(('127.0.0.1', {tcp_port}))\n"
            "    except OSError as e:\n        print(type(e).__name__)\n"
            "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            f"u.sendto(b'x', ('127.0.0.1', {udp_port}))\n"
        )
        r = run(sandbox, program)
        assert r.outcome == "sandbox_violation"
        assert r.detail == f"network access (socket.connect ('127.0.0.1', {tcp_port}))"
        assert any("socket.sendto" in v for v in r.violations)
        tcp.settimeout(0.3)
        with pytest.raises(TimeoutError):
            tcp.accept()
        udp.settimeout(0.3)
        with pytest.raises(TimeoutError):
            udp.recv(16)


def test_name_resolution_is_a_violation(sandbox: LocalSandbox) -> None:
    # urllib.request imports ssl, email and http.client: on a loaded machine that alone can take
    # longer than SMALL's 2 s of wall time, and the test is about the violation, not the limit.
    r = run(
        sandbox,
        "import urllib.request\nurllib.request.urlopen('http://example.com')\n",
        wall_s=20.0,
        cpu_s=10,
    )
    assert r.outcome == "sandbox_violation"
    assert r.detail is not None and r.detail.startswith("socket.getaddrinfo")


def test_kernel_gives_no_network_and_no_other_processes(
    namespaces_sandbox: LocalSandbox,
) -> None:
    program = (
        "import os\nnet = open('/proc/net/dev').read().splitlines()[2:]\n"
        "print(sorted(line.split(':')[0].strip() for line in net))\n"
        "print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
        "print(os.getpid(), os.getppid())\n"
    )
    r = run(namespaces_sandbox, program)
    assert r.outcome == "passed", r.stderr
    assert r.stdout.splitlines() == ["['lo']", "[1, 2]", "2 1"]


# -- signals --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "program",
    [
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n",
        "import os, signal\nos.killpg(os.getpgid(0), signal.SIGKILL)\n",
        "import os, signal\nos.kill(-1, signal.SIGKILL)\n",
        "import os, signal\nos.kill(TEST_PID, signal.SIGKILL)\n",
        "import os, signal\nos.kill(TEST_PID, signal.SIGTERM)\n",
        "import os, signal\nsignal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGKILL)\n",
    ],
    ids=["parent", "process-group", "everyone", "test-process-kill", "test-process-term", "pidfd"],
)
def test_killing_others_is_a_violation(sandbox: LocalSandbox, program: str) -> None:
    r = run(sandbox, program.replace("TEST_PID", str(os.getpid())))
    assert r.outcome == "sandbox_violation"
    assert r.detail is not None and r.detail.startswith(("os.kill", "os.pidfd_open"))
    # The sandbox still works (and this process is still here to check).
    assert run(sandbox, "print('alive')\n").stdout == "alive\n"


def test_killing_itself_is_killed(sandbox: LocalSandbox) -> None:
    r = run(sandbox, "import os, signal\nos.kill(os.getpid(), signal.SIGUSR1)\n")
    assert r.outcome == "killed"
    assert r.detail == "SIGUSR1"


# -- the caller's secrets -------------------------------------------------------------------
def test_parent_environment_is_invisible(mode_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"sbx-secret-{secrets.token_hex(8)}"
    monkeypatch.setenv("SPECVERDICT_SANDBOX_SECRET", secret)
    sb = local_sandbox(mode_name)  # type: ignore[arg-type]
    program = (
        "import os\nprint(dict(os.environ))\n"
        "for pid in ['self', '1', str(os.getppid())] + os.listdir('/proc'):\n"
        "    try:\n        print(open(f'/proc/{pid}/environ', 'rb').read())\n"
        "    except Exception as e:\n        print(pid, type(e).__name__)\n"
    )
    with sb:
        r = run(sb, program)
        assert wait_until_gone(sb.directory, exclude=(sb.zygote_pid,)) == []
    assert secret not in r.stdout + r.stderr
    assert "SPECVERDICT_SANDBOX_SECRET" not in r.stdout
    assert "'HOME': " in r.stdout  # the program did run and print its environment


@pytest.fixture(params=["namespaces", "subreaper"])
def mode_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# -- output ---------------------------------------------------------------------------------
@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_gigabytes_of_output_are_capped(sandbox: LocalSandbox, stream: str) -> None:
    program = f"import sys\nchunk = 'x' * 65536\nwhile True:\n    sys.{stream}.write(chunk)\n"
    start = time.monotonic()
    r = run(sandbox, program, output_bytes=64 * 1024, wall_s=10.0)
    assert time.monotonic() - start < 5.0
    assert r.truncated
    kept = r.stdout if stream == "stdout" else r.stderr
    assert len(kept.encode()) <= 64 * 1024
    assert kept.startswith("x" * 1000)
    assert r.outcome == "error"


def test_output_flood_that_ignores_errors_times_out(sandbox: LocalSandbox) -> None:
    program = (
        "import os\nwhile True:\n    try:\n        os.write(1, b'x' * 65536)\n"
        "    except OSError:\n        pass\n"
    )
    r = run(sandbox, program, output_bytes=4096, wall_s=1.0, cpu_s=5)
    assert r.outcome == "timeout"
    assert r.truncated
    assert len(r.stdout) == 4096


# -- exit tricks and the side channel -------------------------------------------------------
@pytest.mark.parametrize(
    ("program", "outcome", "detail", "stdout"),
    [
        # Exit status 0 before the tests run: the sandbox says "passed" (it ran to completion);
        # a suite compares outputs, which never came.
        ("import os\nos._exit(0)\nassert False\n", "passed", None, ""),
        ("try:\n    assert False\nfinally:\n    import os\n    os._exit(0)\n", "passed", None, ""),
        (
            "print('partial', flush=True)\nimport os\nos._exit(7)\n",
            "error",
            "exit status 7",
            "partial\n",
        ),
        ("import sys\nsys.exit('bye')\n", "error", "exit status 1", ""),
        ("raise SystemExit(3)\n", "error", "exit status 3", ""),
    ],
)
def test_exit_tricks(
    sandbox: LocalSandbox, program: str, outcome: str, detail: str | None, stdout: str
) -> None:
    r = run(sandbox, program)
    assert (r.outcome, r.detail, r.stdout) == (outcome, detail, stdout)


def test_forged_records_cannot_turn_an_error_into_a_pass(sandbox: LocalSandbox) -> None:
    program = (
        "import os\nos.write(3, b'\\nX exit 0 tampered 0 alarm 0\\nE MemoryError\\n')\n"
        "try:\n    os.write(4, b'\\nX exit 0 tampered 0 alarm 0\\n')\n"
        "except OSError as e:\n    print(type(e).__name__)\nraise ValueError('real')\n"
    )
    r = run(sandbox, program)
    assert (r.outcome, r.detail, r.exit_code) == ("error", "ValueError", 1)
    assert r.stdout == "OSError\n"  # the status pipe is not open in the program


def test_closing_the_side_channel_does_not_hide_a_violation(sandbox: LocalSandbox) -> None:
    target = f"/tmp/sbx-outside-{secrets.token_hex(6)}"
    r = run(sandbox, f"import os\nos.close(3)\nopen({target!r}, 'w')\n")
    assert r.outcome == "sandbox_violation"
    assert r.violations == ("side channel closed or replaced",)
    assert not os.path.exists(target)


def test_flooding_the_side_channel_is_a_violation(sandbox: LocalSandbox) -> None:
    r = run(sandbox, "import os\nfor _ in range(100):\n    os.write(3, b'junk' * 4096)\n")
    assert r.outcome == "sandbox_violation"
    # Once the parent stops reading, the bootstrap's own report finds the pipe closed too.
    assert set(r.violations) == {"side channel flooded", "side channel closed or replaced"}


def test_ctypes_is_a_violation(sandbox: LocalSandbox) -> None:
    r = run(sandbox, "import ctypes\nctypes.CDLL(None).kill(1, 9)\n")
    assert r.outcome == "sandbox_violation"
    assert r.detail == "ctypes (ctypes.dlopen)"


def test_no_file_is_left_behind(sandbox: LocalSandbox) -> None:
    before = set(os.listdir(sandbox.directory))
    run(sandbox, "open('left', 'w').write('x')\nimport os\nos.mkdir('d')\nos.chmod('d', 0)\n")
    assert set(os.listdir(sandbox.directory)) == before
    assert os.listdir(os.path.join(sandbox.directory, "work")) == []
    assert os.listdir(os.path.join(sandbox.directory, "runs")) == []


# -- what holds when the hook is disabled ---------------------------------------------------
REPO_ROOT = Path(__file__).resolve().parents[3]


@contextlib.contextmanager
def host_directory(prefix: str) -> Iterator[str]:
    """A directory on the host, readable by the sandbox uid, outside the directories the
    sandbox always covered (``/run`` when we may write there, else next to this file)."""
    parent = "/run" if os.access("/run", os.W_OK) else str(Path(__file__).parent)
    path = tempfile.mkdtemp(prefix=prefix, dir=parent)
    os.chmod(path, 0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def test_a_gc_walk_cannot_switch_the_hook_off(sandbox: LocalSandbox) -> None:
    # Everything the program can reach through gc: a guard object's state (a re-entrancy set,
    # flags), the bootstrap's functions (code, defaults, closures, globals). Then a connect.
    program = (
        "import gc, socket, threading\n"
        "me = threading.get_ident()\n"
        "nothing = (lambda *a: None).__code__\n"
        "for o in gc.get_objects():\n"
        "    try:\n"
        "        if isinstance(getattr(o, 'busy', None), set):\n"
        "            o.busy.add(me)\n"
        "        if hasattr(o, 'allow_subprocess'):\n"
        "            o.allow_subprocess = True\n"
        "    except Exception:\n"
        "        pass\n"
        "    if type(o) is type(gc.isenabled) or not callable(o):\n"
        "        continue\n"
        "    code = getattr(o, '__code__', None)\n"
        "    if code is None or code.co_filename != '<string>':\n"
        "        continue\n"
        "    for name, value in (('__code__', nothing), ('__defaults__', None),\n"
        "                        ('__kwdefaults__', None)):\n"
        "        try:\n"
        "            setattr(o, name, value)\n"
        "        except Exception:\n"
        "            pass\n"
        "    for cell in o.__closure__ or ():\n"
        "        cell.cell_contents = None\n"
        "    for key in [k for k in o.__globals__ if k.startswith('_') and k.isupper()]:\n"
        "        o.__globals__[key] = frozenset()\n"
        "print('walked', flush=True)\n"
        "try:\n"
        "    socket.socket().connect(('127.0.0.1', PORT))\n"
        "except OSError as e:\n"
        "    print(type(e).__name__)\n"
    )
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
        tcp.bind(("127.0.0.1", 0))
        tcp.listen()
        port = tcp.getsockname()[1]
        r = run(sandbox, program.replace("PORT", str(port)), wall_s=10.0, cpu_s=5)
        assert r.stdout.startswith("walked\n"), r.stderr
        assert r.outcome == "sandbox_violation"
        assert f"network access (socket.connect ('127.0.0.1', {port}))" in r.violations
        tcp.settimeout(0.3)
        with pytest.raises(TimeoutError):
            tcp.accept()


def _immutable(value: object) -> bool:
    """Values no Python code can change: sealed functions are checked on their own."""
    if isinstance(value, (tuple, frozenset)):
        return all(_immutable(v) for v in value)
    builtin = (
        types.BuiltinFunctionType,  # os.lstat and the like (C functions)
        types.MethodDescriptorType,  # bytes.decode
        types.WrapperDescriptorType,  # str.__str__
        types.MethodWrapperType,  # the __get__ of FunctionType.__code__
    )
    plain = (str, bytes, int, bool, types.FunctionType, types.CodeType)
    return type(value) in (*plain, *builtin) or (
        isinstance(value, type) and value.__module__ == "builtins"
    )


def test_sealed_hook_reads_no_global_or_closure() -> None:
    # The hook's functions find everything in their own arguments: nothing a program can
    # rebind (module globals, builtins, closure cells) decides what the hook does.
    from specverdict.sandbox import _bootstrap

    hook = _bootstrap.make_hook(work="/w", allow_subprocess=False, side_fd=1, init_pid=os.getpid())
    seen: list[types.FunctionType] = []
    stack = [hook]
    while stack:
        f = stack.pop()
        if any(f is s for s in seen):
            continue
        seen.append(f)
        assert f.__closure__ is None and f.__kwdefaults__ is None
        assert f.__globals__ == {"__builtins__": {}}
        codes = [f.__code__]
        while codes:
            code = codes.pop()
            for ins in dis.get_instructions(code):
                assert ins.opname not in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF"), (
                    f.__name__,
                    ins.argval,
                )
            codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        stack.extend(d for d in f.__defaults__ or () if isinstance(d, types.FunctionType))
        for d in f.__defaults__ or ():
            assert _immutable(d), (f.__name__, d)
    assert len(seen) > 2


def test_unix_sockets_on_the_host_are_unreachable_without_the_hook(
    sandbox: LocalSandbox,
) -> None:
    # The interpreter the program execs runs without the audit hook.
    with host_directory("sbx-unix-") as directory:
        path = os.path.join(directory, "listener.sock")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(path)
            os.chmod(path, 0o777)
            listener.listen()
            child = (
                "import socket\ns = socket.socket(socket.AF_UNIX)\n"
                f"s.connect({path!r})\ns.sendall(b'hi')\nprint('connected')\n"
            )
            program = (
                "import subprocess, sys\n"
                f"r = subprocess.run([sys.executable, '-S', '-c', {child!r}],\n"
                "                   capture_output=True, text=True)\n"
                "print(r.stdout.strip(), r.stderr.strip().splitlines()[-1:])\n"
                "assert r.stdout == 'connected\\n'\n"
            )
            r = run(sandbox, program, allow_subprocess=True, wall_s=10.0, cpu_s=5)
            assert r.outcome != "passed", r.stdout
            assert "connected" not in r.stdout
            listener.settimeout(0.3)
            with pytest.raises(TimeoutError):
                listener.accept()


def test_files_outside_the_run_cannot_be_read(namespaces_sandbox: LocalSandbox) -> None:
    # Reads raise no event the hook refuses: only the mount tree hides the host's files.
    secret = f"sbx-secret-{secrets.token_hex(8)}"
    with host_directory("sbx-read-") as directory:
        target = os.path.join(directory, "secret.txt")
        Path(target).write_text(secret)
        os.chmod(target, 0o644)
        paths = [directory, target, str(REPO_ROOT / "pyproject.toml"), str(REPO_ROOT)]
        program = (
            "import os\n"
            f"for p in {paths!r}:\n"
            "    try:\n"
            "        print(os.listdir(p) if os.path.isdir(p) else open(p).read())\n"
            "    except OSError as e:\n"
            "        print(type(e).__name__)\n"
            "print(sorted(os.listdir('/')))\n"
        )
        r = run(namespaces_sandbox, program)
    assert r.outcome == "passed", r.stderr
    lines = r.stdout.splitlines()
    assert lines[:4] == ["FileNotFoundError"] * 4, r.stdout
    assert secret not in r.stdout
    assert "[project]" not in r.stdout
    for hidden in ("home", "root", "run", "srv", "opt", "mnt", "sys", "boot"):
        assert f"'{hidden}'" not in lines[4]


_FILL_MEMFDS = (
    "import os\ntotal = 0\nfds = []\ntry:\n    while total < (2 * LIMIT) << 20:\n"
    "        fds.append(os.memfd_create('fill'))\n        for _ in range(8):\n"
    "            total += os.write(fds[-1], b'x' * (1 << 20))\n"
    "finally:\n    print('held', total >> 20, flush=True)\n"
)
_SYSV_SHM = (
    "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
    "segment = libc.shmget(0, ctypes.c_size_t((2 * LIMIT) << 20), 0o1600)\n"
    "print('held', 0 if segment == -1 else 2 * LIMIT, flush=True)\n"
    "assert segment != -1, ctypes.get_errno()\n"
)

# In a user namespace of its own a program has every capability again: a tmpfs of its own.
_OWN_TMPFS = (
    "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\ntotal = 0\ntry:\n"
    "    ids = os.getuid(), os.getgid()\n"
    "    if libc.unshare(0x10000000 | 0x00020000) != 0:\n"
    "        raise OSError(ctypes.get_errno(), 'unshare')\n"
    "    for name, text in (('setgroups', 'deny'), ('uid_map', f'0 {ids[0]} 1'),\n"
    "                       ('gid_map', f'0 {ids[1]} 1')):\n"
    "        with open(f'/proc/self/{name}', 'w') as f:\n"
    "            f.write(text)\n"
    "    if libc.mount(b'none', b'.', b'tmpfs', 0, b'size=1g') != 0:\n"
    "        raise OSError(ctypes.get_errno(), 'mount')\n"
    "    os.chdir(os.getcwd())\n"
    "    for i in range((2 * LIMIT) // 8):\n"
    "        with open(f'f{i}', 'wb') as f:\n"
    "            for _ in range(8):\n"
    "                total += f.write(b'x' * (1 << 20))\n"
    "finally:\n    print('held', total >> 20, flush=True)\n"
)


@pytest.mark.parametrize(
    ("program", "exec_it"),
    [(_FILL_MEMFDS, False), (_FILL_MEMFDS, True), (_SYSV_SHM, True), (_OWN_TMPFS, True)],
    ids=["memfd", "memfd-unhooked", "sysv-shm-unhooked", "own-tmpfs-unhooked"],
)
def test_shared_memory_cannot_grow_past_the_memory_limit(
    sandbox: LocalSandbox, program: str, exec_it: bool
) -> None:
    # memfd files and SysV segments live in the host's memory, outside RLIMIT_AS: 32 memfds of
    # 8 MiB each (under file_size_mb and open_files) would hold twice the address-space limit.
    limit = 128
    program = program.replace("LIMIT", str(limit))
    if exec_it:
        program = (
            "import subprocess, sys\n"
            f"r = subprocess.run([sys.executable, '-S', '-c', {program!r}])\n"
            "raise SystemExit(r.returncode)\n"
        )
    r = run(
        sandbox,
        program,
        allow_subprocess=exec_it,
        address_space_mb=limit,
        file_size_mb=8,
        open_files=64,
        wall_s=10.0,
        cpu_s=5,
    )
    assert r.outcome in ("error", "oom", "killed"), (r.outcome, r.stdout)
    assert r.stdout == "held 0\n", r.stderr
