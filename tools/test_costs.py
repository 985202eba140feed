"""Write ``tests/file_costs.json``: each test file's measured seconds, from a JUnit XML report.

    pytest -n 3 --junitxml=report.xml && python tools/test_costs.py report.xml

``tests/conftest.py`` runs the files in decreasing order of these costs, so that pytest-xdist
hands out the longest files first (longest-processing-time-first scheduling) and the suite does
not end on one worker finishing a long file alone. The figures only order the files; a file
missing from the table is given ``DEFAULT_COST`` and a wrong figure costs time, never a test.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "file_costs.json"


def file_costs(report: Path) -> dict[str, float]:
    """Seconds per test file (``tests/.../test_x.py``), summed over its test cases."""
    costs: dict[str, float] = {}
    for case in ET.parse(report).iter("testcase"):
        module = case.get("classname", "")
        # classname is the dotted module path, with a class name after it for test classes
        parts = module.split(".")
        while parts and not parts[-1].startswith("test_"):
            parts.pop()
        if not parts:
            continue
        name = "/".join(parts) + ".py"
        costs[name] = costs.get(name, 0.0) + float(case.get("time", "0") or 0)
    return {name: round(seconds, 1) for name, seconds in sorted(costs.items())}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_file():
        print("usage: python tools/test_costs.py REPORT.xml (a pytest --junitxml report)")
        return 2
    try:
        costs = file_costs(Path(argv[0]))
    except ET.ParseError as exc:
        print(f"{argv[0]}: not a JUnit XML report ({exc})")
        return 2
    OUT.write_text(json.dumps(costs, indent=1) + "\n")
    print(f"{OUT.name}: {len(costs)} files, {sum(costs.values()):.0f} s in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
