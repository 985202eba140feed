"""The trusted side of the sandbox, running as the sandbox uid (see docs/sandbox.md).

``LocalSandbox`` starts this file's text once per sandbox as a *zygote*:
``python -s -S -c <this file> <control fd> <sandbox directory>``, with an environment built
from scratch. Nothing here runs when the package imports the module. The interpreter may be
another Python than the project's (the sandbox uid must be able to run it), so only the
standard library is used.

The zygote imports the modules programs commonly use (``PRELOAD``), then serves requests on a
Unix socket: each request carries a JSON description of one execution and, as ``SCM_RIGHTS``,
its stdin (an in-memory file), stdout, stderr, side channel and status pipes, and an in-memory
file holding the program and its files as JSON. For each request the zygote forks:

- *E*, the execution's leader, leads its own process group (the parent kills that group on
  timeout). In ``namespaces`` mode it unshares user, mount, network, IPC and PID namespaces
  (the uid maps to itself), forks *I* and reports I's end on the status pipe (``L`` record).
  In ``subreaper`` mode E creates the execution's directory, writes the files and becomes I.
- *I*, the init (PID 1 of the new PID namespace, or a child subreaper), dies with E
  (``PR_SET_PDEATHSIG``). In ``namespaces`` mode it mounts a private ``/proc`` and a tmpfs of
  ``disk_mb`` on the execution's directory and writes the files there, then drops every
  capability. It sets ``no_new_privs``, makes itself non-dumpable (the program cannot open its
  file descriptors), forks *P* and reaps every process. When P ends, I writes one ``X`` record
  on the status pipe and exits: the kernel kills what is left of a PID namespace with its init;
  in ``subreaper`` mode I first kills its descendants (orphans re-parent to I, whatever session
  they start), and the zygote, a child subreaper too, kills any that still reach it.
- *P*, the program process, drops the zygote's native handles and ``ctypes`` modules, sets the
  resource limits, installs the audit hook (``Guard``; it cannot be removed) and runs the
  untrusted program as ``__main__``.

Side channel (write-only pipe, shared with the untrusted program): records ``\\nV <what>\\n``
(a violation), ``\\nE <type>\\n`` (an uncaught exception's type), ``\\nS <message>\\n`` (the
program did not compile). The untrusted program can write there too, so the parent only trusts
that it can *add* violations. If the pipe was closed or replaced, the hook signals I (SIGUSR1),
which marks its status record as tampered.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType, TracebackType
    from typing import Any, NoReturn

# Modules imported once by the zygote, so that programs do not pay for them (no module with
# state that differs per process, such as ``random``, belongs here).
PRELOAD = (
    "typing",
    "math",
    "re",
    "collections",
    "itertools",
    "functools",
    "string",
    "heapq",
    "bisect",
    "copy",
    "hashlib",
    "dataclasses",
    "fractions",
    "decimal",
)
FD_STDIN, FD_STDOUT, FD_STDERR, FD_SIDE, FD_STATUS, FD_FILES = range(6)
_TMPFS_INODES = 4096

# Flags of open(2) that make an open a write.
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# Paths outside the work directory that a program may still open for writing.
_WRITABLE_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
# Audited operations that modify a path: event -> ((path arg index, dir_fd arg index or -1), ...).
_PATH_WRITES: dict[str, tuple[tuple[int, int], ...]] = {
    "os.chmod": ((0, 2),),
    "os.chown": ((0, 3),),
    "os.mkdir": ((0, 2),),
    "os.remove": ((0, 1),),
    "os.rmdir": ((0, 1),),
    "os.rename": ((0, 2), (1, 3)),
    "os.link": ((0, 2), (1, 3)),
    "os.symlink": ((1, 2),),
    "os.truncate": ((0, -1),),
    "os.utime": ((0, 3),),
    "os.setxattr": ((0, -1),),
    "os.removexattr": ((0, -1),),
    "shutil.rmtree": ((0, 1),),
    "shutil.chown": ((0, -1),),
}
# Events that start a process or replace the program (allowed only with allow_subprocess).
_PROCESS_EVENTS = frozenset(
    {
        "os.fork",
        "os.forkpty",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.system",
        "subprocess.Popen",
        "pty.spawn",
        "sandbox.fork_exec",
    }
)
# Events that are always violations (name resolution reaches the network; the system log and
# host name are the host's; crafted code objects and extensions can disable the hook).
_FORBIDDEN_EVENTS = frozenset(
    {
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.gethostbyname_ex",
        "socket.gethostbyaddr",
        "socket.getnameinfo",
        "socket.sethostname",
        "syslog.openlog",
        "syslog.syslog",
        "sqlite3.enable_load_extension",
        "sqlite3.load_extension",
        "code.__new__",
    }
)
_SOCKET_ADDRESS_EVENTS = frozenset(
    {"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg"}
)

# Linux constants (x86-64 and aarch64 share them, except the capset syscall number).
_CLONE_NEWNS = 0x00020000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REMOUNT = 1, 2, 4, 8, 32
_MS_REC, _MS_PRIVATE = 16384, 1 << 18
# World-writable directories of a typical host, covered in namespaces mode.
_SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_SET_CHILD_SUBREAPER, _PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}


class Config:
    """One execution's request."""

    def __init__(self, request: dict[str, Any]) -> None:
        self.mode: str = request["mode"]
        self.work: str = os.path.realpath(request["work"])
        self.program: str = request["program"]
        self.address_space: int = request["address_space"]
        self.cpu: int = request["cpu"]
        self.nproc: int = request["nproc"]
        self.file_size: int = request["file_size"]
        self.disk: int = request["disk"]
        self.open_files: int = request["open_files"]
        self.wall: float = request["wall"]
        self.allow_subprocess: bool = request["allow_subprocess"]


class Native:
    """The few system calls Python 3.11 has no wrapper for, through ``ctypes``."""

    def __init__(self) -> None:
        import ctypes

        self.libc: Any = ctypes.CDLL(None, use_errno=True)
        self.get_errno = ctypes.get_errno

        class Header(ctypes.Structure):
            _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))

        class Data(ctypes.Structure):
            _fields_ = (
                ("effective", ctypes.c_uint32),
                ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32),
            )

        # capset(2) with every set empty: no capability left.
        self.cap_header = Header(0x20080522, 0)
        self.cap_data = (Data * 2)()
        self.byref = ctypes.byref

    def forget(self) -> None:
        """Drop every native handle (the program process must not find callable ones)."""
        self.__dict__.clear()

    def _check(self, result: int, what: str) -> None:
        if result != 0:
            errno = self.get_errno()
            raise OSError(errno, f"{what}: {os.strerror(errno)}")

    def prctl(self, option: int, value: int) -> None:
        self._check(self.libc.prctl(option, value, 0, 0, 0), f"prctl({option})")

    def unshare(self, flags: int) -> None:
        self._check(self.libc.unshare(flags), "unshare")

    def mount(
        self,
        source: str | None,
        target: str,
        fstype: str | None,
        flags: int,
        options: str | None = None,
    ) -> None:
        def enc(s: str | None) -> bytes | None:
            return None if s is None else s.encode()

        result = self.libc.mount(enc(source), enc(target), enc(fstype), flags, enc(options))
        self._check(result, f"mount {target}")

    def drop_capabilities(self) -> None:
        number = _SYS_CAPSET.get(os.uname().machine)
        if number is None:
            raise OSError(0, f"capset: unknown syscall number on {os.uname().machine}")
        result = self.libc.syscall(number, self.byref(self.cap_header), self.cap_data)
        self._check(result, "capset")


def _one_line(text: str, limit: int = 300) -> bytes:
    flat = " ".join(text.split())
    return flat[:limit].encode("utf-8", "replace")


def _type_name(exc: BaseException) -> str:
    cls = type(exc)
    module = getattr(cls, "__module__", "builtins")
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


class Reporter:
    """Writes records on the side channel; signals the init when the channel was tampered with."""

    def __init__(self, fd: int, init_pid: int) -> None:
        self.fd = fd
        self.init_pid = init_pid
        self.sigusr1 = signal.SIGUSR1
        st = os.fstat(fd)
        self.identity = (st.st_dev, st.st_ino)

    def record(self, kind: bytes, text: str) -> None:
        data = b"\n" + kind + b" " + _one_line(text) + b"\n"
        try:
            st = os.fstat(self.fd)
            if (st.st_dev, st.st_ino) != self.identity:
                raise OSError("side channel replaced")
            os.write(self.fd, data)
        except OSError:
            with contextlib.suppress(OSError):
                os.kill(self.init_pid, self.sigusr1)


class Guard:
    """The audit hook: records and refuses what a sandboxed program must not do."""

    def __init__(self, cfg: Config, reporter: Reporter) -> None:
        import _thread

        self.work = cfg.work
        self.allow_subprocess = cfg.allow_subprocess
        self.reporter = reporter
        self.get_ident = _thread.get_ident
        self.busy: set[int] = set()

    # -- path helpers -----------------------------------------------------------------------
    def _resolve(self, path: object, dir_fd: int = -1) -> str | None:
        """Absolute real path of ``path`` (None for a file descriptor)."""
        if isinstance(path, int):
            return None
        text = os.fsdecode(os.fspath(path))  # type: ignore[call-overload]
        if not os.path.isabs(text):
            base = os.readlink(f"/proc/self/fd/{dir_fd}") if dir_fd >= 0 else os.getcwd()
            text = os.path.join(base, text)
        return os.path.realpath(text)

    def _outside(self, path: object, dir_fd: int = -1) -> str | None:
        """The path, when it lies outside the work directory (None when inside or an fd)."""
        if isinstance(path, (str, bytes)) and os.fsdecode(path) in _WRITABLE_DEVICES:
            return None
        try:
            full = self._resolve(path, dir_fd)
        except (OSError, TypeError, ValueError):
            return repr(path)
        if full is None or full == self.work or full.startswith(self.work + "/"):
            return None
        return full

    def _other_process_proc(self, path: object) -> bool:
        """True for a path under ``/proc/<pid>`` of another process."""
        if isinstance(path, int):
            return False
        try:
            text = os.fsdecode(os.fspath(path))  # type: ignore[call-overload]
            if "proc" not in text:
                return False
            full = self._resolve(text)
        except (OSError, TypeError, ValueError):
            return False
        if full is None or not full.startswith("/proc/"):
            return False
        head = full[len("/proc/") :].split("/", 1)[0]
        return head.isdigit() and int(head) != os.getpid()

    def _is_descendant(self, pid: int) -> bool:
        me = os.getpid()
        for _ in range(64):
            try:
                fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
                try:
                    stat = os.read(fd, 1024).decode("ascii", "replace")
                finally:
                    os.close(fd)
                pid = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                return False
            if pid == me:
                return True
            if pid <= 1:
                return False
        return False

    # -- the hook ---------------------------------------------------------------------------
    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        me = self.get_ident()
        if me in self.busy:
            return
        self.busy.add(me)
        try:
            what = self._check(event, args)
            if what is not None:
                self.reporter.record(b"V", what)
        finally:
            self.busy.discard(me)
        if what is not None:
            raise PermissionError(f"sandbox: {what} is not allowed")

    def _check(self, event: str, args: tuple[Any, ...]) -> str | None:
        if event == "open":
            path, mode, flags = args
            writes = (
                bool(flags & _WRITE_FLAGS)
                if isinstance(flags, int)
                else isinstance(mode, str) and any(c in mode for c in "wax+")
            )
            if writes:
                outside = self._outside(path)
                if outside is not None:
                    return f"writing {outside}"
            if self._other_process_proc(path):
                return f"opening {path!r}"
            return None
        writes_at = _PATH_WRITES.get(event)
        if writes_at is not None:
            for index, fd_index in writes_at:
                if index >= len(args):
                    continue
                dir_fd = args[fd_index] if 0 <= fd_index < len(args) else -1
                outside = self._outside(args[index], dir_fd if isinstance(dir_fd, int) else -1)
                if outside is not None:
                    return f"{event} on {outside}"
            return None
        if event in ("os.kill", "os.killpg", "os.pidfd_open"):
            target = int(args[0])
            sig = args[1] if event != "os.pidfd_open" else None
            if sig == 0 or (event != "os.killpg" and target == os.getpid()):
                return None
            if event == "os.killpg" and target == os.getpid() == os.getpgid(0):
                return None
            if (
                event in ("os.kill", "os.pidfd_open")
                and self.allow_subprocess
                and target > 1
                and self._is_descendant(target)
            ):
                return None
            return f"{event}({target}, {sig})" if sig is not None else f"{event}({target})"
        if event in _PROCESS_EVENTS:
            return None if self.allow_subprocess else f"starting a process ({event})"
        if event in _SOCKET_ADDRESS_EVENTS:
            sock, address = args[0], args[1]
            import socket as _socket

            if getattr(sock, "family", None) == _socket.AF_UNIX and isinstance(
                address, (str, bytes)
            ):
                text = os.fsdecode(address)
                if text and not text.startswith("\0") and self._outside(text) is None:
                    return None
            return f"network access ({event} {address!r})"
        if event.startswith("ctypes."):
            return f"ctypes ({event})"
        if event in _FORBIDDEN_EVENTS:
            return f"{event}{args!r}"[:200]
        if event == "sqlite3.connect":
            database = args[0] if args else None
            if database in (":memory:", b":memory:", "", b""):
                return None
            outside = self._outside(database)
            return None if outside is None else f"sqlite3 database {outside}"
        return None


# -- P: the program process ---------------------------------------------------------------------
def _set_limits(cfg: Config, nproc: int) -> None:
    import resource

    def both(kind: int, value: int) -> None:
        resource.setrlimit(kind, (value, value))

    both(resource.RLIMIT_CORE, 0)
    both(resource.RLIMIT_AS, cfg.address_space)
    both(resource.RLIMIT_FSIZE, cfg.file_size)
    both(resource.RLIMIT_NOFILE, cfg.open_files)
    both(resource.RLIMIT_NPROC, nproc)
    # The soft limit sends SIGXCPU (reported as a timeout); one second later the kernel kills.
    resource.setrlimit(resource.RLIMIT_CPU, (cfg.cpu, cfg.cpu + 1))


def _uid_processes() -> int:
    """Tasks of this uid now; outside a user namespace RLIMIT_NPROC counts them all."""
    uid = os.getuid()
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{name}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{name}/task"))
    return count


def _audit_calls(module_name: str, name: str, event: str) -> None:
    """Make calls of a function that raises no audit event of its own raise ``event`` (with
    the call's positional arguments) first."""
    try:
        module = __import__(module_name)
        original = getattr(module, name)
    except (ImportError, AttributeError):
        return

    def audited(*args: Any, **kwargs: Any) -> Any:
        sys.audit(event, *args)
        return original(*args, **kwargs)

    setattr(module, name, audited)


def _audit_unaudited() -> None:
    """Functions that reach other processes without an audit event in CPython 3.11."""
    _audit_calls("_posixsubprocess", "fork_exec", "sandbox.fork_exec")
    for module in ("os", "posix"):
        _audit_calls(module, "pidfd_open", "os.pidfd_open")


def _forget_native(native: Native) -> None:
    """Drop the zygote's ``ctypes`` handles: a program that wants ctypes must load it again,
    which the hook sees."""
    native.forget()
    for name in [n for n in sys.modules if n in ("ctypes", "_ctypes") or n.startswith("ctypes.")]:
        del sys.modules[name]


def _run_program(cfg: Config, init_pid: int, native: Native) -> None:
    """P: limits, hook, then the untrusted program as ``__main__``; never returns."""
    os.close(FD_STATUS)
    native.prctl(_PR_SET_DUMPABLE, 1)
    _forget_native(native)
    if "random" in sys.modules:
        sys.modules["random"].seed()
    # In the user namespace RLIMIT_NPROC counts the leader, the init and the program's
    # processes; outside one, every process of the uid (this one and the init included).
    others = _uid_processes() - 1 if cfg.mode == "subreaper" else 2
    nproc = cfg.nproc + others
    _set_limits(cfg, nproc)
    _fresh_stdio()
    sys.dont_write_bytecode = True
    sys.path[:] = [cfg.work, *(p for p in sys.path if p and p != cfg.work)]
    sys.argv[:] = [cfg.program]
    with open(cfg.program, "rb") as f:
        source = f.read()
    main = type(sys)("__main__")
    main.__file__ = cfg.program
    main.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = main
    reporter = Reporter(FD_SIDE, init_pid)
    _audit_unaudited()
    sys.addaudithook(Guard(cfg, reporter))
    try:
        code = compile(source, cfg.program, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        reporter.record(b"S", f"{_type_name(exc)}: {exc}")
        _print_exception(exc, None)
        _exit(1)
    except BaseException as exc:
        reporter.record(b"E", _type_name(exc))
        _print_exception(exc, None)
        _exit(1)
    del source
    try:
        exec(code, main.__dict__)
    except SystemExit as exc:
        _exit(_exit_code(exc))
    except BaseException as exc:
        reporter.record(b"E", _type_name(exc))
        tb = exc.__traceback__
        _print_exception(exc, tb.tb_next if tb is not None else None)
        _exit(1)
    _exit(0)


def _fresh_stdio() -> None:
    """Standard streams on descriptors 0-2 as a new interpreter in UTF-8 mode makes them (the
    zygote's were made for /dev/null)."""
    streams = vars(sys)
    streams["stdin"] = streams["__stdin__"] = open(  # noqa: SIM115
        FD_STDIN, encoding="utf-8", errors="surrogateescape", closefd=False
    )
    streams["stdout"] = streams["__stdout__"] = open(  # noqa: SIM115
        FD_STDOUT, "w", encoding="utf-8", errors="surrogateescape", closefd=False
    )
    streams["stderr"] = streams["__stderr__"] = open(  # noqa: SIM115
        FD_STDERR, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False
    )


def _exit_code(exc: SystemExit) -> int:
    """As the interpreter maps ``SystemExit``: None is 0, an int itself, else printed and 1."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(BaseException):
        print(code, file=sys.stderr)
    return 1


def _exit(code: int) -> NoReturn:
    """Leave as the interpreter does at the end of a script (``atexit`` handlers, non-daemon
    threads, flushing), but never return into the zygote's code."""
    threading = sys.modules.get("threading")
    if threading is not None:
        with contextlib.suppress(BaseException):
            threading._shutdown()
    try:
        import atexit

        atexit._run_exitfuncs()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            code = code or 120
    os._exit(code)


def _print_exception(exc: BaseException, tb: TracebackType | None) -> None:
    """Print as the interpreter would, without the bootstrap's own frame."""
    exc.__traceback__ = tb
    try:
        sys.excepthook(type(exc), exc, tb)
    except BaseException:
        with contextlib.suppress(BaseException):
            sys.__excepthook__(type(exc), exc, tb)


# -- I: the init ------------------------------------------------------------------------------
def _children() -> list[int]:
    pids: list[int] = []
    with contextlib.suppress(OSError):
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as f:
                pids.extend(int(p) for p in f.read().split())
    return pids


def _kill_children(sigkill: int) -> None:
    for pid in _children():
        with contextlib.suppress(OSError):
            os.kill(pid, sigkill)


class Init:
    """I: reaps every process, reports how P ended, leaves nothing behind.

    Signal handlers are installed before P is forked (a SIGUSR1 from P must never meet the
    default action) and reset in P.
    """

    def __init__(self, cfg: Config, native: Native) -> None:
        self.cfg = cfg
        self.native = native
        self.child = 0
        self.tampered = 0
        self.alarm = 0
        self.signals = signal
        handlers: tuple[tuple[int, Callable[[int, FrameType | None], None]], ...] = (
            (signal.SIGUSR1, self._on_tamper),
            (signal.SIGALRM, self._on_alarm),
            (signal.SIGTERM, self._on_term),
            (signal.SIGHUP, self._on_term),
            (signal.SIGINT, self._on_term),
        )
        for sig, handler in handlers:
            signal.signal(sig, handler)

    def reset_in_child(self) -> None:
        s = self.signals
        for sig in (s.SIGUSR1, s.SIGALRM, s.SIGTERM, s.SIGHUP, s.SIGCHLD):
            s.signal(sig, s.SIG_DFL)
        s.signal(s.SIGINT, s.default_int_handler)

    def _kill_child(self) -> None:
        if self.child > 0:
            with contextlib.suppress(OSError):
                os.kill(self.child, self.signals.SIGKILL)

    def _on_tamper(self, signum: int, frame: FrameType | None) -> None:
        self.tampered = 1

    def _on_alarm(self, signum: int, frame: FrameType | None) -> None:
        # Backstop for a parent that went away: the wall limit plus a margin.
        self.alarm = 1
        self._kill_child()

    def _on_term(self, signum: int, frame: FrameType | None) -> None:
        self._kill_child()

    def run(self, init_pid: int) -> None:
        """Fork P, wait for it, clean up, report; never returns."""
        self.signals.setitimer(self.signals.ITIMER_REAL, self.cfg.wall + 2.0)
        child = os.fork()
        if child == 0:
            self.reset_in_child()
            try:
                _run_program(self.cfg, init_pid, self.native)
            finally:
                os._exit(1)
        self.child = child
        for fd in (FD_STDIN, FD_STDOUT, FD_STDERR, FD_SIDE):
            os.close(fd)
        usage = None
        status = 0
        while True:
            try:
                pid, status, usage = os.wait4(-1, 0)
            except ChildProcessError:
                usage = None
                break
            if pid == child:
                break
        if usage is None:
            line = "X lost"
        elif os.WIFSIGNALED(status):
            line = f"X signal {os.WTERMSIG(status)}"
        else:
            line = f"X exit {os.WEXITSTATUS(status)}"
        if usage is not None:
            line += f" cpu {usage.ru_utime + usage.ru_stime:.4f} rss_kb {usage.ru_maxrss}"
        if self.cfg.mode == "subreaper":
            # Kill and reap what is left (orphans re-parent here as long as this process lives).
            while True:
                _kill_children(self.signals.SIGKILL)
                try:
                    os.wait4(-1, 0)
                except ChildProcessError:
                    break
        line += f" tampered {self.tampered} alarm {self.alarm}\n"
        with contextlib.suppress(OSError):
            os.write(FD_STATUS, line.encode("ascii"))
        os._exit(0)


# -- E: the execution's leader --------------------------------------------------------------
def _status_line(text: str) -> None:
    with contextlib.suppress(OSError):
        os.write(FD_STATUS, f"\n{text}\n".encode("utf-8", "replace"))


def _write_files(work: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = os.path.join(work, name)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def _cover_shared_writable(work: str, native: Native) -> None:
    """Hide the host's world-writable directories under empty read-only tmpfs mounts, so that
    even writes the audit hook cannot see stay inside the execution's directory. When the work
    directory lies below one of them, its path is recreated inside the cover first."""
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    for path in _SHARED_WRITABLE:
        if os.path.islink(path) or not os.path.isdir(path):
            continue
        native.mount("tmpfs", path, "tmpfs", flags, "size=64k,nr_inodes=64,mode=755")
        if work.startswith(path + "/"):
            os.makedirs(work, mode=0o700)
        native.mount(None, path, None, _MS_REMOUNT | _MS_RDONLY | flags)


def _execution(cfg: Config, fds: list[int], native: Native) -> None:
    """E: set up one execution from the received descriptors; never returns."""
    import fcntl
    import json

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setpgid(0, 0)
    # The received descriptors become 0..5; everything else (the control socket) is closed.
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, 16) for fd in fds]
    for target, fd in enumerate(moved):
        os.dup2(fd, target)
    with open(FD_FILES, "rb") as f:
        files: dict[str, str] = json.loads(f.read())
    os.closerange(FD_FILES, 1 << 20)
    os.environ["HOME"] = os.environ["TMPDIR"] = cfg.work
    try:
        if cfg.mode == "subreaper":
            os.mkdir(cfg.work, 0o700)
            _write_files(cfg.work, files)
            os.chdir(cfg.work)
            native.prctl(_PR_SET_DUMPABLE, 0)
            native.prctl(_PR_SET_CHILD_SUBREAPER, 1)
            native.prctl(_PR_SET_NO_NEW_PRIVS, 1)
            Init(cfg, native).run(os.getpid())
        uid, gid = os.getuid(), os.getgid()
        native.unshare(
            _CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWPID
        )
        for name, text in (
            ("setgroups", "deny"),
            ("uid_map", f"{uid} {uid} 1"),
            ("gid_map", f"{gid} {gid} 1"),
        ):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
        # Only now: a non-dumpable process cannot write its own id maps.
        native.prctl(_PR_SET_DUMPABLE, 0)
    except OSError as exc:
        _status_line(f"F {exc}")
        os._exit(1)
    init = os.fork()
    if init == 0:
        try:
            native.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            native.mount(None, "/", None, _MS_REC | _MS_PRIVATE)
            native.mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
            _cover_shared_writable(cfg.work, native)
            # The execution's own file system, gone with its mount namespace.
            flags = _MS_NOSUID | _MS_NODEV | (0 if cfg.allow_subprocess else _MS_NOEXEC)
            options = f"size={cfg.disk},nr_inodes={_TMPFS_INODES},mode=700"
            native.mount("tmpfs", cfg.work, "tmpfs", flags, options)
            os.chdir(cfg.work)
            _write_files(cfg.work, files)
            native.prctl(_PR_SET_NO_NEW_PRIVS, 1)
            native.drop_capabilities()
            native.prctl(_PR_SET_DUMPABLE, 0)
        except OSError as exc:
            _status_line(f"F {exc}")
            os._exit(1)
        try:
            Init(cfg, native).run(1)
        finally:
            os._exit(1)
    for fd in (FD_STDIN, FD_STDOUT, FD_STDERR, FD_SIDE):
        os.close(fd)
    while True:
        try:
            _, status = os.waitpid(init, 0)
            break
        except ChildProcessError:
            status = -1
            break
    if status == -1:
        _status_line("L lost")
    elif os.WIFSIGNALED(status):
        _status_line(f"L signal {os.WTERMSIG(status)}")
    else:
        _status_line(f"L exit {os.WEXITSTATUS(status)}")
    os._exit(0)


# -- the zygote -------------------------------------------------------------------------------
def serve(control_fd: int) -> None:
    """Fork one execution per request until the parent closes the socket."""
    import json
    import select
    import socket

    native = Native()
    native.prctl(_PR_SET_CHILD_SUBREAPER, 1)
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            __import__(name)
    sock = socket.socket(fileno=control_fd)
    sock.sendall(f"ready {sys.version.split()[0]}".encode())
    # From now on nobody reads the zygote's stderr.
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, FD_STDERR)
    os.close(null)
    live: set[int] = set()
    # Leaders are reaped as soon as they exit; strays are looked for once a second.
    signal.signal(signal.SIGCHLD, lambda signum, frame: _reap(live))
    while True:
        ready, _, _ = select.select([sock], [], [], 1.0)
        if not ready:
            _reap(live)
            _kill_strays(live)
            continue
        try:
            message, fds, _, _ = socket.recv_fds(sock, 1 << 16, 8)
        except OSError:
            return
        if not message:
            return
        try:
            cfg = Config(json.loads(message))
            if len(fds) != FD_FILES + 1:
                raise ValueError(f"expected {FD_FILES + 1} descriptors, got {len(fds)}")
            pid = os.fork()
        except Exception as exc:
            for fd in fds:
                os.close(fd)
            sock.sendall(f"error {exc}".encode())
            continue
        if pid == 0:
            try:
                sock.close()
                _execution(cfg, fds, native)
            finally:
                os._exit(1)
        live.add(pid)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
        for fd in fds:
            os.close(fd)
        sock.sendall(f"pid {pid}".encode())


def _reap(live: set[int]) -> None:
    """Reap finished children."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        live.discard(pid)


def _kill_strays(live: set[int]) -> None:
    """Kill any child that is not a leader: an orphan that outlived its init (the zygote is a
    child subreaper, so such orphans re-parent here)."""
    for pid in _children():
        if pid not in live:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    # argv[2] names the sandbox's directory: it only makes the processes easy to find.
    serve(int(sys.argv[1]))
