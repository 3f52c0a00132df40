"""What a load run is given and what its monitor saw: shared by the run (evals/load.py) and its report
(evals/load_report.py), so neither imports the other back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.service.harness import REPO

PHASES = ("steady", "kill", "pg-restart")


@dataclass(frozen=True)
class LoadConfig:
    users: int = 6
    runs_per_user: int = 3
    workers: int = 3
    phases: tuple[str, ...] = PHASES
    backend: str = "offline"  # or "scripted": tests/service/scripted.py, no models
    poll_s: float = 1.0
    phase_limit_s: int = 600  # Locust's --run-time for one phase
    stalled_after_s: float = 30.0  # `sparkit worker`'s default: on a starved machine 10 s took live workers' runs
    home: Path = Path("/var/tmp/sparkit-load")
    data: Path = REPO.parent / "shared" / "data"
    questions: tuple[str, ...] = ()
    context: dict[str, Any] = field(default_factory=dict)


@dataclass
class Watch:
    """What the monitor saw during a phase: when every worker was busy with runs waiting, peak RSS, the fault."""

    saturated: list[tuple[float, float]] = field(default_factory=list)
    rss_mb: dict[int, float] = field(default_factory=dict)
    fault: dict[str, Any] = field(default_factory=dict)
    db_unreachable_s: float = 0.0
    serve_cpu_s: float = 0.0
