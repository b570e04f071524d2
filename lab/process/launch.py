"""How this run starts student processes, decided once at the top and passed down.

`lab grade` decides it for the class (is there a sandbox, is the zygote up) and hands it to
each submission's check run (`lab check --launch JSON`, a hidden option); `lab check` on a
student's own machine makes one with no sandbox. Nothing below the command reads an
environment variable to decide how a process starts: no fallback can be taken silently deep
in the code, and a test can say exactly which path it drives.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from lab.process.sandbox import Spec


@dataclass(frozen=True)
class Launch:
    """sandbox: every student process runs in bubblewrap under this spec (None: as it is, on a
    student's own machine or under `lab grade --no-sandbox`).
    zygote: the address of the zygote that forks the model runner with openai loaded and joins
    it into its sandbox ("": a new interpreter in the sandbox, the same isolation).
    preloader: the address of a preloader that forks the unsandboxed model runner (`lab check
    --watch`, `lab grade --no-sandbox`) and the SDK client ("": new interpreters).
    nonce: the grading nonce of this check run ("" outside `lab grade`).
    probes_in_turn: the probes run one after the other, where the host's process limit would
    not hold them all at once (lab/grading/capacity.py): fewer processes, the same checks.
    inspector: the MCP Inspector's command in npx's cache, found once by `lab grade --bonus`:
    the only Inspector a graded run starts, never npx."""

    sandbox: Spec | None = None
    zygote: str = ""
    preloader: str = ""
    nonce: str = ""
    probes_in_turn: bool = False
    inspector: str = ""

    @property
    def grading(self) -> bool:
        return bool(self.nonce)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> "Launch":
        """The context to_json gave (by the same kit: `lab grade` to its own check runs)."""
        data = json.loads(text)
        return cls(**{**data, "sandbox": Spec.from_dict(data["sandbox"]) if data["sandbox"] else None})


HERE = Launch()  # a student's own machine: no sandbox, no preloaded helper
