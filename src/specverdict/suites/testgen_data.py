"""The tasks of ``testgen@1``: functions, their specs, hand-written mutants and gold tests.

Written for specverdict (Apache-2.0). Each task is a small standard-library function (the
reference implementation), a short spec, three to five mutants (each one textual change of the
reference that changes its behaviour on some input the spec covers) and a gold test module
that passes on the reference and kills every mutant (the suite's tests check both).

The tasks are data: records in ``data/testgen/tasks.jsonl``, the reference and the gold tests
of each as real modules under ``data/testgen/.sources/<task>/``. Changing a task changes the
suite's data hash: bump ``TestGen.version`` (the lock test says so).
"""

from __future__ import annotations

from dataclasses import dataclass

from specverdict.suites.dataset import DataDir, Reader, Record, RelPath

DATA = DataDir.of("specverdict.suites", "data", "testgen")
FILE = "tasks.jsonl"


@dataclass(frozen=True, slots=True)
class Mutant:
    """One textual change of the reference: ``old`` occurs exactly once and becomes ``new``."""

    name: str
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class TestgenTask:
    """A function to write tests for. ``module`` is the module the tests import it from."""

    __test__ = False  # not a pytest test class

    task_id: str
    module: str
    entry_point: str
    spec: str
    reference: str
    mutants: tuple[Mutant, ...]
    gold: str

    def mutant_source(self, mutant: Mutant) -> str:
        """The mutant's module source; a ValueError when ``old`` is not there exactly once."""
        if self.reference.count(mutant.old) != 1:
            raise ValueError(f"{self.task_id}/{mutant.name}: the change does not apply once")
        return self.reference.replace(mutant.old, mutant.new)


class MutantRecord(Record):
    name: str
    old: str
    new: str


class TaskRecord(Record):
    """A task; ``reference`` and ``gold`` are paths under ``.sources``."""

    task_id: str
    module: str
    entry_point: str
    spec: str
    reference: RelPath
    gold: RelPath
    mutants: tuple[MutantRecord, ...]


def load_tasks(data: DataDir = DATA) -> tuple[TestgenTask, ...]:
    reader = Reader(data)
    out: list[TestgenTask] = []
    for line in reader.records(FILE, TaskRecord):
        r = line.record
        reference = reader.source(line, "reference", r.reference)
        for n, m in enumerate(r.mutants):
            if reference.count(m.old) != 1:
                raise line.error(f"mutants.{n}.old", "does not occur exactly once in the reference")
        out.append(
            TestgenTask(
                task_id=r.task_id,
                module=r.module,
                entry_point=r.entry_point,
                spec=r.spec,
                reference=reference,
                mutants=tuple(Mutant(m.name, m.old, m.new) for m in r.mutants),
                gold=reader.source(line, "gold", r.gold),
            )
        )
    reader.finish()
    return tuple(out)


TASKS: tuple[TestgenTask, ...] = load_tasks()
