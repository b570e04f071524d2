"""The result model: every output (the terminal view, `--json`, each platform's format) is made
from a `Report`, never from the checks themselves."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

PASSED, FAILED, SKIPPED, ERROR = "passed", "failed", "skipped", "error"

# What a result shows may come from a student's program: every text is cut here, in one place,
# so that a report keeps its size whatever a submission prints.
SHOWN_CHARS = 2000  # expected, actual, output, message, title, hint
FIELD_CHARS = 300  # each text of a reason's fields (and of the lists and reasons nested in them)
FIELD_ITEMS = 20  # items kept of a list, or keys of a dict, in the fields


def cut(text: str, limit: int = SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def capped_field(value: Any, depth: int = 0) -> Any:
    """A reason's field with every text in it cut (numbers and None kept as they are)."""
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    if isinstance(value, dict) and depth < 4:
        return {cut(str(key), FIELD_CHARS): capped_field(item, depth + 1)
                for key, item in list(value.items())[:FIELD_ITEMS]}
    if isinstance(value, (list, tuple)) and depth < 4:
        return [capped_field(item, depth + 1) for item in list(value)[:FIELD_ITEMS]]
    return cut(str(value), FIELD_CHARS)  # a text, anything else, or what is nested too deep


def capped_fields(values: Any) -> dict[str, Any]:
    return {str(key): capped_field(value) for key, value in dict(values).items()} if isinstance(values, dict) else {}


@dataclass
class CheckResult:
    id: str  # stable, e.g. "server.ping-any-state"
    task: str  # the lesson part, e.g. "server-2"
    points: int  # what the check is worth
    status: str  # PASSED, FAILED, SKIPPED or ERROR
    title: str  # in the report's language
    hint: str = ""  # what to do next, in the report's language
    expected: str = ""
    actual: str = ""
    message: str = ""  # why it failed, was skipped, or errored
    # The same reason as a key of the checks' REASONS and its fields ("" when the check said it
    # in its own words): what lab/grading/causes.py reads, whatever the report's language.
    reason: str = ""
    fields: dict[str, Any] = field(default_factory=dict)
    output: str = ""  # an excerpt of what the student's code printed (truncated)
    focus: list[str] = field(default_factory=list)  # key paths the check judged in expected/actual
    duration: float = 0.0  # seconds

    @property
    def score(self) -> int:
        return self.points if self.status == PASSED else 0

    def capped(self) -> "CheckResult":
        """Every text of it cut to its size (the engine's and the grader's last step)."""
        for name in ("title", "hint", "expected", "actual", "message", "output", "reason"):
            setattr(self, name, cut(str(getattr(self, name))))
        self.fields = capped_fields(self.fields)
        self.focus = [cut(str(path), FIELD_CHARS) for path in self.focus][:FIELD_ITEMS] if isinstance(
            self.focus, list) else []
        return self

    @classmethod
    def from_dict(cls, item: dict[str, Any]) -> "CheckResult":
        """A result as a report's JSON holds it: its known keys only, each of its type, capped."""
        if unknown := set(item) - {f.name for f in fields(cls)}:
            raise KeyError(f"unknown keys {sorted(unknown)[:3]}")
        result = cls(**item)
        if not all(isinstance(getattr(result, name), str) for name in ("id", "task", "status")) or \
                type(result.points) is not int or not isinstance(result.duration, (int, float)):
            raise TypeError("a result's id, task, status, points or duration has the wrong type")
        return result.capped()


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
        results = [CheckResult.from_dict(item) for item in data.get("results", [])]
        if not isinstance(data.get("duration", 0.0), (int, float)):
            raise TypeError("a report's duration has the wrong type")
        return cls(
            target=data["target"],
            lang=data.get("lang", "fr"),
            results=results,
            error=cut(str(data.get("error", ""))),
            reason=cut(str(data.get("reason") or ""), FIELD_CHARS),
            fields=capped_fields(data.get("fields") or {}),
            duration=data.get("duration", 0.0),
            kit_error=bool(data.get("kit_error", False)),
            warnings=[cut(str(w)) for w in data.get("warnings", [])][:FIELD_ITEMS],
        )
