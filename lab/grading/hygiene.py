"""Text a submission controls, made safe for every place it lands (terminals, spreadsheets, XML,
JSON), once, on the Report, before any format: control characters (new lines and tabs aside),
lone surrogates, the non-characters XML forbids and bidirectional overrides written as visible
escapes (`\\x1b`); a CSV cell a spreadsheet would read as a formula gets a leading apostrophe.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace

from lab.results import CheckResult, Report

UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 (but tab and new line), DEL, C1 (\x9b is a CSI too)
    "\ud800-\udfff"  # lone surrogates: not encodable in UTF-8, forbidden in XML
    "\ufffe\uffff"  # non-characters XML 1.0 forbids
    "\u202a-\u202e\u2066-\u2069]"  # bidirectional embeddings, overrides and isolates
)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def clean_text(value: str) -> str:
    """`value` with every unsafe character written as a visible escape; CRLF becomes LF."""
    return UNSAFE.sub(escape, value.replace("\r\n", "\n"))


def csv_cell(value: object) -> str:
    """A cleaned cell that no spreadsheet runs as a formula."""
    cell = clean_text(str(value))
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


def clean_value(value: object) -> object:
    """A reason's field with every text in it clean."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(str(key)): clean_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_value(item) for item in value]
    return value


def clean_result(result: CheckResult) -> CheckResult:
    changes = {f.name: clean_text(getattr(result, f.name)) for f in fields(result)
               if isinstance(getattr(result, f.name), str)}
    return replace(result, **changes, fields=clean_value(result.fields), focus=clean_value(result.focus))


def clean_report(report: Report) -> Report:
    """A copy of `report` whose every text field is clean (the scores are left as they are)."""
    return replace(report, target=clean_text(report.target), lang=clean_text(report.lang),
                   error=clean_text(report.error), fields=clean_value(report.fields),
                   results=[clean_result(result) for result in report.results])
