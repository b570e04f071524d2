"""The result model: one internal shape for a run of the graded checks.

Every output (the student's terminal view, `--json`, Gradescope, Exercism, JUnit,
CSV) is made from a `Report`; none of them looks at the checks themselves.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

PASSED, FAILED, SKIPPED, ERROR = "passed", "failed", "skipped", "error"
STATUSES = (PASSED, FAILED, SKIPPED, ERROR)


@dataclass
class CheckResult:
    id: str  # stable, e.g. "server.ping-any-state"
    task: str  # the lesson part, e.g. "server-2"
    points: int  # what the check is worth
    status: str  # one of STATUSES
    title: str  # in the report's language
    hint: str = ""  # what to do next, in the report's language
    expected: str = ""
    actual: str = ""
    message: str = ""  # why it failed, was skipped, or errored
    # The same reason as a key of lab/checks/texts.py and its fields ("" when the check said it
    # in its own words): what lab/grading/causes.py reads, whatever the report's language.
    reason: str = ""
    fields: dict[str, Any] = field(default_factory=dict)
    output: str = ""  # an excerpt of what the student's code printed (truncated)
    focus: list[str] = field(default_factory=list)  # key paths the check judged in expected/actual
    duration: float = 0.0  # seconds

    @property
    def score(self) -> int:
        return self.points if self.status == PASSED else 0


@dataclass
class Report:
    target: str  # the folder that was checked
    lang: str
    results: list[CheckResult] = field(default_factory=list)
    error: str = ""  # set when the run itself could not finish (crash, time limit)
    # The same as a key of lab/i18n.py's grader messages ("grade.timeout") and its fields:
    # what lab/grading/causes.py reads ("" for an error said in other words, a kit bug's).
    reason: str = ""
    fields: dict[str, Any] = field(default_factory=dict)
    duration: float = 0.0
    kit_error: bool = False  # `error` is the kit's own failure, not the submission's doing
    warnings: list[str] = field(default_factory=list)  # e.g. graded without a sandbox

    @property
    def score(self) -> int:
        return sum(result.score for result in self.results)

    @property
    def max_score(self) -> int:
        return sum(result.points for result in self.results)

    @property
    def failed_ids(self) -> list[str]:
        return [result.id for result in self.results if result.status != PASSED]

    @property
    def all_passed(self) -> bool:
        return not self.error and all(result.status == PASSED for result in self.results)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["score"], data["max_score"] = self.score, self.max_score
        # A reason's key and fields only where there is one: a class's records stay their size.
        for item in (data, *data["results"]):
            for name in ("reason", "fields"):
                if not item[name]:
                    del item[name]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Report":
        results = [CheckResult(**item) for item in data.get("results", [])]
        return cls(
            target=data["target"],
            lang=data.get("lang", "fr"),
            results=results,
            error=data.get("error", ""),
            reason=str(data.get("reason") or ""),
            fields=dict(data.get("fields") or {}),
            duration=data.get("duration", 0.0),
            kit_error=bool(data.get("kit_error", False)),
            warnings=[str(w) for w in data.get("warnings", [])],
        )
