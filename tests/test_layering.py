"""The runtime never imports the training package (weights and tables are what it ships, not the code)."""

import subprocess
import sys

RUNTIME_MODULES = ["agent", "agent.graph", "agent.cli", "agent.api", "agent.backend", "agent.judges", "agent.judges.cross",
                   "agent.judges.trained", "agent.judges.heuristic", "agent.reasoners.extractive", "agent.calibration"]


def test_runtime_imports_no_training_code():
    code = "import sys\n" + "".join(f"import {m}\n" for m in RUNTIME_MODULES) + (
        "print(sorted(m for m in sys.modules if m == 'training' or m.startswith('training.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
