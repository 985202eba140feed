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
  (``PR_SET_PDEATHSIG``). In ``namespaces`` mode it builds a private root (``_build_root``:
  read-only binds of the system and interpreter directories, a few devices, a private
  ``/proc`` and a tmpfs of ``disk_mb`` for the execution's directory), pivots into it and
  detaches the host's mount tree, writes the files, then drops every capability. It sets
  ``no_new_privs``, makes itself non-dumpable (the program cannot open its file descriptors),
  forks *P* and reaps every process. When P ends, I writes one ``X`` record on the status pipe
  and exits: the kernel kills what is left of a PID namespace with its init; in ``subreaper``
  mode I first kills its descendants (orphans re-parent to I, whatever session they start),
  and the zygote, a child subreaper too, kills any that still reach it.
- *P*, the program process, installs the seccomp filter (``seccomp_filter``), drops the
  zygote's native handles and ``ctypes`` modules, sets the resource limits, installs the
  audit hook (``make_hook``: a sealed function that cannot be removed or switched off) and
  runs the untrusted program as ``__main__``.

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
    "unittest",
    "importlib.util",
)
FD_STDIN, FD_STDOUT, FD_STDERR, FD_SIDE, FD_STATUS, FD_FILES = range(6)
_TMPFS_INODES = 4096

# Flags of open(2) that make an open a write.
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# Paths outside the work directory that a program may still open for writing.
_WRITABLE_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
# Audited operations that modify a path: (event, ((path arg index, dir_fd arg index or -1), ...)).
_PATH_WRITES: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = (
    ("os.chmod", ((0, 2),)),
    ("os.chown", ((0, 3),)),
    ("os.mkdir", ((0, 2),)),
    ("os.remove", ((0, 1),)),
    ("os.rmdir", ((0, 1),)),
    ("os.rename", ((0, 2), (1, 3))),
    ("os.link", ((0, 2), (1, 3))),
    ("os.symlink", ((1, 2),)),
    ("os.truncate", ((0, -1),)),
    ("os.utime", ((0, 3),)),
    ("os.setxattr", ((0, -1),)),
    ("os.removexattr", ((0, -1),)),
    ("shutil.rmtree", ((0, 1),)),
    ("shutil.chown", ((0, -1),)),
)
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
# Attributes whose assignment replaces what a function does (each raises an audit event;
# the hook refuses it for its own functions).
_FUNCTION_ATTRIBUTES = frozenset({"__code__", "__defaults__", "__kwdefaults__"})
# Every event the hook looks at ("ctypes.*" too); it returns at once for any other.
_INTERESTING = frozenset(
    {
        "open",
        "os.kill",
        "os.killpg",
        "os.pidfd_open",
        "sqlite3.connect",
        "object.__setattr__",
        "object.__delattr__",
        *(event for event, _ in _PATH_WRITES),
        *_PROCESS_EVENTS,
        *_FORBIDDEN_EVENTS,
        *_SOCKET_ADDRESS_EVENTS,
    }
)

# Linux constants (x86-64 and aarch64 share them, except the capset syscall number).
_CLONE_NEWNS = 0x00020000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REMOUNT = 1, 2, 4, 8, 32
_MS_BIND, _MS_REC, _MS_PRIVATE = 4096, 16384, 1 << 18
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_SET_CHILD_SUBREAPER, _PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
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

        class Fprog(ctypes.Structure):
            _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_char_p))

        # capset(2) with every set empty: no capability left.
        self.cap_header = Header(0x20080522, 0)
        self.cap_data = (Data * 2)()
        self.byref = ctypes.byref
        self.fprog = Fprog

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

    def umount_detach(self, target: str) -> None:
        self._check(self.libc.umount2(target.encode(), _MNT_DETACH), f"umount {target}")

    def pivot_root_here(self) -> None:
        """pivot_root(".", ".") (no C library wrapper)."""
        number = _SYS_PIVOT_ROOT.get(os.uname().machine)
        if number is None:
            raise OSError(0, f"pivot_root: unknown syscall number on {os.uname().machine}")
        self._check(self.libc.syscall(number, b".", b"."), "pivot_root")

    def seccomp(self, program: bytes) -> None:
        """Install a seccomp filter (``no_new_privs`` must be set)."""
        fprog = self.fprog(len(program) // 8, program)
        result = self.libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, self.byref(fprog), 0, 0)
        self._check(result, "seccomp")

    def drop_capabilities(self) -> None:
        number = _SYS_CAPSET.get(os.uname().machine)
        if number is None:
            raise OSError(0, f"capset: unknown syscall number on {os.uname().machine}")
        result = self.libc.syscall(number, self.byref(self.cap_header), self.cap_data)
        self._check(result, "capset")


def _type_name(exc: BaseException) -> str:
    cls = type(exc)
    module = getattr(cls, "__module__", "builtins")
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


# -- seccomp ----------------------------------------------------------------------------------
# System calls P and everything it starts may not make, refused by the kernel with EPERM
# whatever happens to the audit hook (a seccomp filter is inherited across fork and exec and
# cannot be removed). Why each:
# - connect, bind, listen (which binds an unbound socket), sendto with an address, sendmsg
#   and sendmmsg (whose address the filter cannot read): no network, Unix sockets included;
#   creating a socket is refused too except for the Unix and IP families, which can then reach
#   nothing (socketpair stays allowed: asyncio and multiprocessing use it);
# - io_uring_setup: io_uring can open sockets and connect without these system calls;
# - memfd_create, memfd_secret, shmget, mq_open: memory that lives outside the process (no
#   RLIMIT_AS counts it) and outside the execution's tmpfs (its size counts files);
# - unshare, setns, and clone with a namespace flag: in a user namespace of its own a program
#   has every capability again and could mount a tmpfs of any size (or, after a chroot,
#   climb out of one); clone3, whose flags the filter cannot read, fails with ENOSYS, and the
#   C library falls back to clone;
# - ptrace, process_vm_readv/writev: other processes of the uid (subreaper mode);
# - bpf: kernel objects that hold memory;
# - execve, execveat unless subprocesses are allowed.
_SECCOMP_REFUSED = (
    "connect",
    "bind",
    "listen",
    "sendmsg",
    "sendmmsg",
    "io_uring_setup",
    "memfd_create",
    "memfd_secret",
    "shmget",
    "mq_open",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "bpf",
    "unshare",
    "setns",
)
_SECCOMP_EXEC = ("execve", "execveat")
# The zygote's two filters, by whether the execution may exec.
_FILTERS: dict[bool, bytes] = {}
# The architecture word of ``struct seccomp_data`` (AUDIT_ARCH_*) and the system call numbers.
_SECCOMP_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_SYSCALL_NUMBERS = {
    "x86_64": {
        "socket": 41,
        "connect": 42,
        "sendto": 44,
        "sendmsg": 46,
        "bind": 49,
        "listen": 50,
        "sendmmsg": 307,
        "io_uring_setup": 425,
        "memfd_create": 319,
        "memfd_secret": 447,
        "shmget": 29,
        "mq_open": 240,
        "ptrace": 101,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "bpf": 321,
        "execve": 59,
        "execveat": 322,
        "clone": 56,
        "clone3": 435,
        "unshare": 272,
        "setns": 308,
    },
    "aarch64": {
        "socket": 198,
        "connect": 203,
        "sendto": 206,
        "sendmsg": 211,
        "bind": 200,
        "listen": 201,
        "sendmmsg": 269,
        "io_uring_setup": 425,
        "memfd_create": 279,
        "memfd_secret": 447,
        "shmget": 194,
        "mq_open": 180,
        "ptrace": 117,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "bpf": 280,
        "execve": 221,
        "execveat": 281,
        "clone": 220,
        "clone3": 435,
        "unshare": 97,
        "setns": 268,
    },
}
_AF_UNIX, _AF_INET, _AF_INET6 = 1, 2, 10
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO_EPERM = 0x00050000 | 1  # SECCOMP_RET_ERRNO with errno 1 (EPERM)
_SECCOMP_RET_ERRNO_ENOSYS = 0x00050000 | 38
# CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
# CLONE_NEWNET
_CLONE_NAMESPACES = 0x7E020000
_SECCOMP_RET_KILL_PROCESS = 0x80000000
# Classic BPF opcodes (linux/filter.h); the filter's accumulator A is 32 bits wide.
_BPF_LD_W_ABS = 0x20  # A = the 32-bit word at offset k of struct seccomp_data
_BPF_JEQ_K = 0x15  # if A == k: skip jt instructions, else skip jf
_BPF_JGE_K = 0x35  # if A >= k: skip jt, else skip jf
_BPF_JSET_K = 0x45  # if A & k: skip jt, else skip jf
_BPF_RET_K = 0x06  # return k (the action)


def seccomp_filter(machine: str, allow_exec: bool) -> bytes:
    """The BPF program of ``_SECCOMP_REFUSED`` (and of ``_SECCOMP_EXEC`` unless
    ``allow_exec``) for this architecture, as ``struct sock_filter`` records.

    ``struct seccomp_data`` is ``int nr`` (offset 0), ``u32 arch`` (4), ``u64 ip`` (8) and
    ``u64 args[6]`` (16). The program first checks ``arch``: a system call of another ABI
    (i386 ``int 0x80`` on x86-64 has other numbers) kills the process, and so does one with
    the x32 bit (0x40000000) set, which x86-64 reports under its own ``arch``. Then::

            ld  [0]                       ; A = nr
            jeq #socket, socket           ; the calls whose arguments decide
            jeq #sendto, sendto
            jeq #clone, clone
            jeq #clone3, enosys
            jeq #connect, refuse          ; one test per refused call ...
            ret ALLOW
        socket:                           ; socket(family, ...): the family's low word
            ld  [16]
            jeq #AF_UNIX, allow ; jeq #AF_INET, allow ; jeq #AF_INET6, allow, refuse
        sendto:                           ; sendto(..., dest_addr, addrlen): only without an
            ld  [48] ; jeq #0, next, refuse   ; address (both halves of args[4] zero)
            ld  [52] ; jeq #0, allow, refuse
        clone:                            ; clone(flags, ...): no namespace flag
            ld  [16] ; jset #CLONE_NEW*, refuse, allow
        allow:  ret ALLOW
        refuse: ret ERRNO(EPERM)
        enosys: ret ERRNO(ENOSYS)
        kill:   ret KILL_PROCESS

    Classic BPF jumps only forward, so the labels come after every jump to them.
    """
    import struct

    arch = _SECCOMP_ARCH.get(machine)
    if arch is None:
        raise OSError(0, f"seccomp: unknown architecture {machine}")
    nr = _SYSCALL_NUMBERS[machine]
    low = 0 if sys.byteorder == "little" else 4  # offset of the low half of a 64-bit word
    refused = _SECCOMP_REFUSED if allow_exec else _SECCOMP_REFUSED + _SECCOMP_EXEC
    # (opcode, jump if true, jump if false, k); a jump names a label (None: next instruction).
    Insn = tuple[int, "str | None", "str | None", int]
    labelled: list[Insn | str] = [
        (_BPF_LD_W_ABS, None, None, 4),
        (_BPF_JEQ_K, None, "kill", arch),
        (_BPF_LD_W_ABS, None, None, 0),
        (_BPF_JGE_K, "kill", None, 0x40000000),
        (_BPF_JEQ_K, "socket", None, nr["socket"]),
        (_BPF_JEQ_K, "sendto", None, nr["sendto"]),
        (_BPF_JEQ_K, "clone", None, nr["clone"]),
        (_BPF_JEQ_K, "enosys", None, nr["clone3"]),
        *((_BPF_JEQ_K, "refuse", None, nr[name]) for name in refused),
        (_BPF_RET_K, None, None, _SECCOMP_RET_ALLOW),
        "socket",
        (_BPF_LD_W_ABS, None, None, 16 + low),
        (_BPF_JEQ_K, "allow", None, _AF_UNIX),
        (_BPF_JEQ_K, "allow", None, _AF_INET),
        (_BPF_JEQ_K, "allow", "refuse", _AF_INET6),
        "sendto",
        (_BPF_LD_W_ABS, None, None, 16 + 8 * 4 + low),
        (_BPF_JEQ_K, None, "refuse", 0),
        (_BPF_LD_W_ABS, None, None, 16 + 8 * 4 + 4 - low),
        (_BPF_JEQ_K, "allow", "refuse", 0),
        "clone",
        (_BPF_LD_W_ABS, None, None, 16 + low),
        (_BPF_JSET_K, "refuse", "allow", _CLONE_NAMESPACES),
        "allow",
        (_BPF_RET_K, None, None, _SECCOMP_RET_ALLOW),
        "refuse",
        (_BPF_RET_K, None, None, _SECCOMP_RET_ERRNO_EPERM),
        "enosys",
        (_BPF_RET_K, None, None, _SECCOMP_RET_ERRNO_ENOSYS),
        "kill",
        (_BPF_RET_K, None, None, _SECCOMP_RET_KILL_PROCESS),
    ]
    labels: dict[str, int] = {}
    program: list[Insn] = []
    for item in labelled:
        if isinstance(item, str):
            labels[item] = len(program)
        else:
            program.append(item)

    def offset(label: str | None, at: int) -> int:
        # Jumps are relative to the next instruction and go forward only.
        return 0 if label is None else labels[label] - at - 1

    return b"".join(
        struct.pack("=HBBI", code, offset(jt, at), offset(jf, at), k)
        for at, (code, jt, jf, k) in enumerate(program)
    )


# -- the private root (namespaces mode) -----------------------------------------------------
# Host paths bound read-only into each execution's root (with the interpreter's own
# directories), when they exist; symbolic links among them are copied as links.
_ROOT_SYSTEM = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc/ld.so.cache",
    "/etc/localtime",
)
# Devices bound as they are (writable: writing /dev/null must work).
_ROOT_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
_ROOT_LINKS = (
    ("/dev/fd", "/proc/self/fd"),
    ("/dev/stdin", "/proc/self/fd/0"),
    ("/dev/stdout", "/proc/self/fd/1"),
    ("/dev/stderr", "/proc/self/fd/2"),
)
# Empty directories (read-only, like the whole root but the execution's directory).
_ROOT_EMPTY = ("/proc", "/etc", "/tmp", "/var/tmp", "/dev/shm")
_MNT_DETACH = 2
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}


class RootPlan:
    """What each execution's private root holds, worked out once by the zygote."""

    def __init__(self) -> None:
        self.links: list[tuple[str, str]] = list(_ROOT_LINKS)
        #: (path, flags the read-only remount keeps, or -1 for a device left as it is)
        self.binds: list[tuple[str, int]] = []
        #: empty files (mount points of file binds)
        self.files: list[str] = []
        bound: list[str] = []

        def covered(path: str) -> bool:
            return any(path == b or path.startswith(b + "/") for b in bound)

        def bind(path: str) -> None:
            # A bind of a mount that is nosuid/nodev/noexec must stay so (the kernel refuses
            # to lift these locked flags in a user namespace); atime flags are kept anyway.
            keep = os.statvfs(path).f_flag & (_MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
            self.binds.append((path, keep))
            bound.append(path)
            if not os.path.isdir(path):
                self.files.append(path)

        for path in _ROOT_SYSTEM:
            if os.path.islink(path):
                self.links.append((path, os.readlink(path)))
            elif os.path.exists(path):
                bind(path)
        # The interpreter's library directories (programs import from them; with -S the
        # prefixes are the base installation's), then the interpreter itself by the name
        # programs run it (sys.executable), when its directory is not bound already.
        for path in (sys.prefix, sys.exec_prefix, sys.base_prefix, *sys.path):
            real = os.path.realpath(path) if path else ""
            if real not in ("", "/") and os.path.isdir(real) and not covered(real):
                bind(real)
        exe = sys.executable
        if exe and os.path.isfile(exe) and not covered(os.path.realpath(os.path.dirname(exe))):
            bind(exe)
        for path in _ROOT_DEVICES:
            if os.path.exists(path):
                self.binds.append((path, -1))
                self.files.append(path)
        needed: set[str] = set(_ROOT_EMPTY)
        needed.update(p for p, keep in self.binds if p not in self.files)
        for path in [*needed, *self.files, *(link for link, _ in self.links)]:
            parent = os.path.dirname(path)
            while parent != "/":
                needed.add(parent)
                parent = os.path.dirname(parent)
        #: directories to create, parents first
        self.dirs = sorted(needed, key=lambda d: (d.count("/"), d))


def _build_root(cfg: Config, native: Native, plan: RootPlan) -> None:
    """I's private root: a small tmpfs on the execution's mount point (``cfg.work`` on the
    host, in this mount namespace only) with the plan's read-only binds, a private ``/proc``
    and the execution's own tmpfs at ``cfg.work``; then ``pivot_root`` into it, detach the
    host's tree and make the root read-only. Nothing of the host is left but what the plan
    binds."""
    import errno

    root = cfg.work
    native.mount("tmpfs", root, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=1m,nr_inodes=1024,mode=755")
    for path in plan.dirs:
        os.mkdir(root + path, 0o755)
    os.makedirs(root + cfg.work, 0o755)
    for path in plan.files:
        os.close(os.open(root + path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))
    for path, target in plan.links:
        os.symlink(target, root + path)
    uid, gid = os.getuid(), os.getgid()
    for name, text in (
        ("passwd", f"root:x:0:0::/:/bin/false\nsandbox:x:{uid}:{gid}::{cfg.work}:/bin/false\n"),
        ("group", f"root:x:0:\nsandbox:x:{gid}:\n"),
    ):
        with open(f"{root}/etc/{name}", "w") as f:
            f.write(text)
    for path, keep in plan.binds:
        native.mount(path, root + path, None, _MS_BIND | _MS_REC)
        if keep >= 0:
            native.mount(None, root + path, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | keep)
    native.mount("proc", root + "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    flags = _MS_NOSUID | _MS_NODEV | (0 if cfg.allow_subprocess else _MS_NOEXEC)
    options = f"size={cfg.disk},nr_inodes={_TMPFS_INODES},mode=700"
    native.mount("tmpfs", root + cfg.work, "tmpfs", flags, options)
    os.chdir(root)
    try:
        # pivot_root(".", "."): the old root ends up mounted on top of the new one, and
        # detaching it leaves the new root alone in this mount namespace.
        native.pivot_root_here()
        native.umount_detach(".")
    except OSError as exc:
        if exc.errno != errno.EINVAL:
            raise
        os.chroot(".")  # the current root is the initial ramdisk, which cannot be pivoted
    os.chdir("/")
    native.mount(None, "/", None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)
    os.chdir(cfg.work)


# -- the audit hook -------------------------------------------------------------------------
# A program can reach every object of its interpreter (``gc.get_objects()``, frames, closures)
# and rebind module globals and builtins. So the hook keeps no state a program could change:
# it is a function made by ``_seal`` with an empty globals dict (even builtins), no closure
# and no keyword defaults, and it finds everything it uses in its positional defaults, a
# tuple: strings, numbers, frozensets, C functions (``os.lstat`` is ``posix.lstat``), built-in
# types, code objects and other sealed functions. Replacing a function's ``__code__`` or
# defaults raises an audit event, which the hook refuses for its own functions; every other
# object it uses is immutable. (``make_hook``; ``test_sealed_hook_reads_no_global_or_closure``
# checks the bytecode and the defaults.)


def _seal(template: Callable[..., Any], **values: Any) -> Any:
    """A copy of ``template`` whose globals are empty and whose defaults are ``values`` (the
    template's own defaults for the rest)."""
    import types

    code = template.__code__
    defaults = template.__defaults__ or ()
    names = code.co_varnames[code.co_argcount - len(defaults) : code.co_argcount]
    bound = tuple(values.pop(name, default) for name, default in zip(names, defaults, strict=True))
    if values:
        raise TypeError(f"{template.__name__} has no parameters {sorted(values)}")
    return types.FunctionType(code, {"__builtins__": {}}, template.__name__, bound)


_FUNCTION: Any = type(_seal)
_CODE_OF = _FUNCTION.__code__.__get__  # a function's code, whatever the function's class says


def _h_text(
    path: Any,
    fspath: Any = os.fspath,
    isinstance: Any = isinstance,
    bytes: Any = bytes,
    decode: Any = bytes.decode,
    copy: Any = str.__str__,
) -> str:
    """The path as an exact ``str`` (a ``str`` subclass could lie in its own methods)."""
    value = fspath(path)
    if isinstance(value, bytes):
        return decode(value, "utf-8", "surrogateescape")  # type: ignore[no-any-return]
    return copy(value)  # type: ignore[no-any-return]


def _h_realpath(
    path: str, lstat: Any = os.lstat, readlink: Any = os.readlink, OSError: Any = OSError
) -> str:
    """``os.path.realpath`` (not strict) of an absolute path."""
    rest = path.split("/")[::-1]
    resolved = ""
    links = 0
    while rest:
        name = rest.pop()
        if name in ("", "."):
            continue
        if name == "..":
            resolved = resolved[: resolved.rfind("/")] if resolved else ""
            continue
        candidate = resolved + "/" + name
        try:
            mode = lstat(candidate).st_mode
        except OSError:
            resolved = candidate
            continue
        if mode & 0o170000 != 0o120000:  # not a symbolic link
            resolved = candidate
            continue
        links += 1
        if links > 40:
            raise OSError("too many levels of symbolic links")
        target = readlink(candidate)
        if target.startswith("/"):
            resolved = ""
        rest.extend(target.split("/")[::-1])
    return resolved or "/"


def _h_outside(
    path: Any,
    dir_fd: int = -1,
    work: str = "",
    text: Any = _h_text,
    realpath: Any = _h_realpath,
    devices: frozenset[str] = _WRITABLE_DEVICES,
    getcwd: Any = os.getcwd,
    readlink: Any = os.readlink,
    isinstance: Any = isinstance,
    int: Any = int,
    errors: tuple[type[Exception], ...] = (OSError, TypeError, ValueError),
) -> str | None:
    """The real path of ``path`` when it lies outside the work directory (None when inside,
    or for a file descriptor)."""
    if isinstance(path, int):
        return None
    try:
        name = text(path)
        if name in devices:
            return None
        if not name.startswith("/"):
            base = readlink(f"/proc/self/fd/{dir_fd}") if dir_fd >= 0 else getcwd()
            name = base + "/" + name
        full: str = realpath(name)
    except errors:
        return f"{path!r}"
    if full == work or full.startswith(work + "/"):
        return None
    return full


def _h_proc_of_other(
    path: Any,
    writes: bool,
    text: Any = _h_text,
    realpath: Any = _h_realpath,
    getcwd: Any = os.getcwd,
    getpid: Any = os.getpid,
    isinstance: Any = isinstance,
    int: Any = int,
    errors: tuple[type[Exception], ...] = (OSError, TypeError, ValueError),
) -> bool:
    """True for a path under ``/proc/<pid>`` of another process (except reading its ``stat``
    line, public in ``ps``, which ``_h_descendant`` reads)."""
    if isinstance(path, int):
        return False
    try:
        name = text(path)
        if "proc" not in name:
            return False
        if not name.startswith("/"):
            name = getcwd() + "/" + name
        full: str = realpath(name)
    except errors:
        return False
    if not full.startswith("/proc/"):
        return False
    head = full[6:].split("/", 1)[0]  # after "/proc/"
    if not head.isdigit() or int(head) == getpid():
        return False
    return writes or full != "/proc/" + head + "/stat"


def _h_descendant(
    pid: int,
    open: Any = os.open,
    read: Any = os.read,
    close: Any = os.close,
    getpid: Any = os.getpid,
    int: Any = int,
    range: Any = range,
    rdonly: int = os.O_RDONLY,
    errors: tuple[type[Exception], ...] = (OSError, ValueError, IndexError),
) -> bool:
    """True when ``pid`` descends from this process (following parents in ``/proc``)."""
    me = getpid()
    for _ in range(64):
        try:
            fd = open(f"/proc/{pid}/stat", rdonly)
            try:
                stat = read(fd, 1024).decode("ascii", "replace")
            finally:
                close(fd)
            pid = int(stat.rsplit(")", 1)[1].split()[1])
        except errors:
            return False
        if pid == me:
            return True
        if pid <= 1:
            return False
    return False


def _h_record(
    kind: bytes,
    text: str,
    fd: int = FD_SIDE,
    identity: tuple[int, int] = (0, 0),
    init_pid: int = 0,
    sigusr1: int = signal.SIGUSR1.value,
    fstat: Any = os.fstat,
    write: Any = os.write,
    kill: Any = os.kill,
    OSError: Any = OSError,
) -> None:
    """Write one record on the side channel; when the channel was closed or replaced, signal
    the init instead (it marks its status record)."""
    line = " ".join(text.split())[:300]
    data = b"\n" + kind + b" " + line.encode("utf-8", "replace") + b"\n"
    try:
        st = fstat(fd)
        if (st.st_dev, st.st_ino) != identity:
            raise OSError("side channel replaced")
        write(fd, data)
    except OSError:
        try:  # noqa: SIM105 (no contextlib: a sealed function reads no global)
            kill(init_pid, sigusr1)
        except OSError:
            pass


def _h_hook(
    event: str,
    args: tuple[Any, ...],
    work: str = "",
    allow_subprocess: bool = False,
    init_pid: int = 0,
    record: Any = None,
    outside: Any = None,
    proc_of_other: Any = None,
    descendant: Any = None,
    interesting: frozenset[str] = _INTERESTING,
    path_writes: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = _PATH_WRITES,
    process_events: frozenset[str] = _PROCESS_EVENTS,
    forbidden: frozenset[str] = _FORBIDDEN_EVENTS,
    socket_events: frozenset[str] = _SOCKET_ADDRESS_EVENTS,
    function_attributes: frozenset[str] = _FUNCTION_ATTRIBUTES,
    own_codes: frozenset[Any] = frozenset(),
    function_type: Any = _FUNCTION,
    code_of: Any = _CODE_OF,
    type: Any = type,
    write_flags: int = _WRITE_FLAGS,
    sigusr1: int = signal.SIGUSR1.value,
    getpid: Any = os.getpid,
    getpgid: Any = os.getpgid,
    isinstance: Any = isinstance,
    int: Any = int,
    str: Any = str,
    len: Any = len,
    refuse: type[PermissionError] = PermissionError,
) -> None:
    """The audit hook: records and refuses what a sandboxed program must not do."""
    if event not in interesting and not event.startswith("ctypes."):
        return
    what = None
    if event == "open":
        path, mode, flags = args
        if isinstance(flags, int):
            writes = flags & write_flags != 0
        else:
            writes = False
            if isinstance(mode, str):
                for c in "wax+":
                    if c in mode:
                        writes = True
        if writes:
            out = outside(path, -1, work)
            if out is not None:
                what = "writing " + out
        if what is None and proc_of_other(path, writes):
            what = f"opening {path!r}"
    elif event in process_events:
        if not allow_subprocess:
            what = "starting a process (" + event + ")"
    elif event in socket_events:
        what = f"network access ({event} {args[1]!r})"
    elif event.startswith("ctypes."):
        what = "ctypes (" + event + ")"
    elif event in forbidden:
        what = f"{event}{args!r}"[:200]
    elif event in ("os.kill", "os.killpg", "os.pidfd_open"):
        target = int(args[0])
        sig = args[1] if event != "os.pidfd_open" else None
        me = getpid()
        allowed = (
            sig == 0
            or (event != "os.killpg" and target == me)
            or (event == "os.killpg" and target == me == getpgid(0))
            # how ``record`` reports a tampered side channel (harmless from anyone)
            or (event == "os.kill" and target == init_pid and sig == sigusr1)
            or (event != "os.killpg" and allow_subprocess and target > 1 and descendant(target))
        )
        if allowed:
            pass
        elif sig is None:
            what = f"{event}({target})"
        else:
            what = f"{event}({target}, {sig})"
    elif event in ("object.__setattr__", "object.__delattr__"):
        # Only the hook's own functions: namedtuple, for one, sets a function's defaults.
        if (
            len(args) > 1
            and args[1] in function_attributes
            and type(args[0]) is function_type
            and code_of(args[0]) in own_codes
        ):
            what = "replacing the sandbox hook's " + args[1]
    elif event == "sqlite3.connect":
        database = args[0] if args else None
        if database not in (":memory:", b":memory:", "", b""):
            out = outside(database, -1, work)
            if out is not None:
                what = "sqlite3 database " + out
    else:
        for name, places in path_writes:
            if name != event:
                continue
            for index, fd_index in places:
                if index >= len(args):
                    continue
                dir_fd = args[fd_index] if 0 <= fd_index < len(args) else -1
                out = outside(args[index], dir_fd if isinstance(dir_fd, int) else -1, work)
                if out is not None:
                    what = event + " on " + out
                    break
    if what is not None:
        record(b"V", what)
        raise refuse("sandbox: " + what + " is not allowed")


def make_recorder(side_fd: int, init_pid: int) -> Callable[[bytes, str], None]:
    """The sealed ``_h_record`` for this execution's side channel."""
    st = os.fstat(side_fd)
    return _seal(  # type: ignore[no-any-return]
        _h_record, fd=side_fd, identity=(st.st_dev, st.st_ino), init_pid=init_pid
    )


def make_hook(
    work: str, allow_subprocess: bool, side_fd: int, init_pid: int
) -> Callable[[str, tuple[Any, ...]], None]:
    """The sealed audit hook of one execution (see the comment above ``_seal``)."""
    text = _seal(_h_text)
    realpath = _seal(_h_realpath)
    return _seal(  # type: ignore[no-any-return]
        _h_hook,
        work=work,
        allow_subprocess=allow_subprocess,
        init_pid=init_pid,
        record=make_recorder(side_fd, init_pid),
        outside=_seal(_h_outside, text=text, realpath=realpath),
        proc_of_other=_seal(_h_proc_of_other, text=text, realpath=realpath),
        descendant=_seal(_h_descendant),
        own_codes=frozenset(f.__code__ for f in _SEALED),
    )


_SEALED = (_h_hook, _h_record, _h_text, _h_realpath, _h_outside, _h_proc_of_other, _h_descendant)


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
    """P: filter, limits, hook, then the untrusted program as ``__main__``; never returns."""
    try:
        native.seccomp(_FILTERS[cfg.allow_subprocess])
    except OSError as exc:
        _status_line(f"F {exc}")
        os._exit(1)
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
    record = make_recorder(FD_SIDE, init_pid)
    _audit_unaudited()
    sys.addaudithook(make_hook(cfg.work, cfg.allow_subprocess, FD_SIDE, init_pid))
    try:
        code = compile(source, cfg.program, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        record(b"S", f"{_type_name(exc)}: {exc}")
        _print_exception(exc, None)
        _exit(1)
    except BaseException as exc:
        record(b"E", _type_name(exc))
        _print_exception(exc, None)
        _exit(1)
    del source
    try:
        exec(code, main.__dict__)
    except SystemExit as exc:
        _exit(_exit_code(exc))
    except BaseException as exc:
        record(b"E", _type_name(exc))
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


def _execution(cfg: Config, fds: list[int], native: Native, plan: RootPlan) -> None:
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
            _build_root(cfg, native, plan)
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
    plan = RootPlan()
    for allow_exec in (False, True):
        _FILTERS[allow_exec] = seccomp_filter(os.uname().machine, allow_exec)
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
                _execution(cfg, fds, native, plan)
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
