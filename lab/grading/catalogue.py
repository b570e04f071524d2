"""The list of graded checks, known without running them: a run that could not finish becomes a
full report (every check at 0, with the reason), and a check run's report is held to the list
(points from the list, unknown ids dropped, missing ones at 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lab.i18n import text
from lab.results import ERROR, FAILED, PASSED, CheckResult, Report


@dataclass
class Catalogue:
    checks: list[CheckResult] = field(default_factory=list)  # templates: id, task, points, title, hint
    conditions: dict[str, str] = field(default_factory=dict)  # check id -> file it applies to
    bonus: bool = False  # the opt-in bonus checks count (`lab grade --bonus`)
    absent: frozenset[str] = frozenset()  # checks whose file this folder lacks (for_folder)

    def for_folder(self, folder: Path) -> "Catalogue":
        """All the checks (every submission has the same maximum), those whose file this folder
        lacks marked absent: 0 as "bonus not attempted"."""
        absent = frozenset(check.id for check in self.checks
                           if check.id in self.conditions and not (folder / self.conditions[check.id]).is_file())
        return Catalogue(self.checks, self.conditions, self.bonus, absent)

    @classmethod
    def from_report(cls, report: Report, bonus: bool = False) -> "Catalogue":
        """The checks a full run reported (the solutions' run, when the engine lists none)."""
        if report.error:
            return cls(bonus=bonus)
        return cls([CheckResult(id=result.id, task=result.task, points=result.points, status=ERROR,
                                title=result.title, hint=result.hint) for result in report.results], bonus=bonus)

    @classmethod
    def from_engine(cls, lang: str, bonus: bool = False) -> "Catalogue | None":
        """The check engine's own list (lab.checks.selected_checks()), if it offers one."""
        try:
            from lab import checks as engine

            listed = engine.selected_checks(bonus)
            templates = [CheckResult(id=check.id, task=check.task, points=check.points, status=ERROR,
                                     title=check.title.get(lang, ""), hint=check.hint.get(lang, ""))
                         for check in listed]
        except Exception:  # no engine, or an engine bug: fall back to the solutions' run
            return None
        return cls(templates, {check.id: check.applies_when for check in listed if check.applies_when}, bonus)

    @property
    def max_score(self) -> int:
        return sum(check.points for check in self.checks)

    def failed(self, target: str, lang: str, reason: str, key: str = "", kit_error: bool = False,
               **fields: Any) -> Report:
        """Every check at 0 with `reason`, written from the grader's message `key` and `fields`;
        `kit_error`: the kit's failure, no mark, graded again on a rerun."""
        results = [replace(check, status=ERROR, message=reason) for check in self.checks]
        return Report(target=target, lang=lang, results=results, error=reason, reason=key, fields=fields,
                      kit_error=kit_error)

    def stopped(self, target: str, lang: str, key: str, kit_error: bool = False, **fields: Any) -> Report:
        """failed() with the grader's message `key`, in `lang`."""
        return self.failed(target, lang, text(lang, key, **fields), key, kit_error, **fields)

    def reconcile(self, report: Report, lang: str) -> Report:
        if not self.checks:
            return report
        reported = {result.id: result for result in report.results}
        results = []
        for check in self.checks:
            result = reported.get(check.id)
            if result is None and check.id in self.absent and not report.error:
                fields = {"file": self.conditions[check.id]}  # the reason lab/grading/causes.py reads
                results.append(replace(check, status=FAILED, reason="grade.bonus_not_attempted", fields=fields,
                                       message=text(lang, "grade.bonus_not_attempted", **fields)))
            elif result is None:
                results.append(replace(check, status=ERROR, message=text(lang, "grade.not_reported")))
            else:
                status = result.status if result.status in (PASSED, "failed", "skipped", ERROR) else ERROR
                results.append(replace(result, points=check.points, task=check.task, status=status))
        return replace(report, lang=report.lang or lang, results=results, warnings=list(report.warnings),
                       fields=dict(report.fields))
