"""What every benchmark script shares: the machine's description and writing its section of
``RESULTS.md`` (replaced in place when present, appended otherwise; other sections untouched)."""

from __future__ import annotations

import os
import platform
from datetime import date
from pathlib import Path


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown cpu"


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, {cpu_model()}"


def section_head(heading: str, command: str) -> list[str]:
    """A section's first lines: its heading, today's date, this machine and the command."""
    return [
        heading,
        "",
        f"- date: {date.today().isoformat()}",
        f"- machine: {machine()}",
        f"- command: `{command}`",
    ]


def write_section(path: Path, heading: str, section: str) -> None:
    """Put ``section`` (starting with ``heading``) in place of the file's section of that
    heading, which runs to the next ``## `` heading."""
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    if heading in text:
        before, _, rest = text.partition(heading)
        nxt = rest.find("\n## ")
        after = rest[nxt + 1 :] if nxt >= 0 else ""
        text = before.rstrip() + "\n\n" + section.rstrip() + "\n" + ("\n" + after if after else "")
    else:
        text = text.rstrip() + "\n\n" + section.rstrip() + "\n"
    path.write_text(text)
