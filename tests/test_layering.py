"""What the runtime must not import: the training, eval and benchmark code (weights and tables are what it ships, not
the code), and on the offline path the project's HTTP layer and API clients. Training and evals share benchmarks/ and
never import each other."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

RUNTIME_MODULES = [
    "agent",
    "agent.graph",
    "agent.cli",
    "agent.api",
    "agent.api.langgraph_server",
    "agent.api.mcp_server",
    "agent.backend",
    "agent.judges",
    "agent.judges.cross",
    "agent.judges.trained",
    "agent.judges.heuristic",
    "agent.reasoners.extractive",
    "agent.scoring.calibration",
]


def test_runtime_imports_no_training_code():
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in RUNTIME_MODULES)
        + ("print(sorted(m for m in sys.modules if m.split('.')[0] in ('training', 'evals', 'benchmarks')))")
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


REPO = Path(__file__).resolve().parents[1]


def imported_packages(package: str) -> dict[str, set[str]]:
    """Each module of a top-level package -> the top-level packages its imports name (at any depth of the file)."""
    found: dict[str, set[str]] = {}
    for path in sorted((REPO / package).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
        found[str(path.relative_to(REPO))] = names
    return found


@pytest.mark.parametrize(
    ("package", "forbidden"), [("training", {"evals"}), ("evals", {"training"}), ("benchmarks", {"training", "evals"})]
)
def test_training_and_evals_share_benchmarks_and_never_import_each_other(package, forbidden):
    offenders = {module: names & forbidden for module, names in imported_packages(package).items() if names & forbidden}
    assert not offenders, offenders


OFFLINE_RUN = """
import sys
from agent import Context
from agent.backend import backend_for
from agent.graph import graph

documents = [
    {"id": "d1", "title": "Vitamin D and fracture risk",
     "abstract": "Vitamin D supplementation reduced hip fracture risk by 18% in adults over 65."},
    {"id": "d2", "title": "Coral reef bleaching",
     "abstract": "Ocean warming drives coral bleaching events across the Pacific."},
]
context = Context(preset="fast", stance_model="heuristic", max_claims=0)
question = "Does vitamin D reduce fracture risk?"
answer = graph.invoke({"question": question, "documents": documents}, context=context)["answer"]
assert backend_for(context, documents).name == "offline" and answer.citations, answer
print(sorted(m for m in sys.modules if m.startswith("agent.tools.")))
"""
HTTP_CLIENT_MODULES = {
    "agent.tools.http",
    "agent.tools.live",
    "agent.tools.arxiv",
    "agent.tools.semantic_scholar",
    "agent.tools.openalex",
    "agent.tools.crossref",
    "agent.tools.brave",
    "agent.tools.pubchem",
    "agent.tools.cohere_rerank",
    "agent.tools.voyage",
}


OFFLINE_PATH_MODULES = [
    "agent",
    "agent.api",
    "agent.graph",
    "agent.backend",
    "agent.search",
    "agent.tools.local_index",
    "agent.tools.offline_rerank",
    "agent.tools.encoder",
    "agent.judges",
    "agent.reasoners.extractive",
]


def test_the_offline_path_imports_no_http_client():
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in OFFLINE_PATH_MODULES)
        + ("print(sorted(m for m in sys.modules if m.startswith('agent.tools.')))")
    )
    loaded = set(eval(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout))
    assert loaded and not loaded & HTTP_CLIENT_MODULES, loaded


@pytest.mark.slow
def test_an_offline_run_loads_no_http_client():
    """A whole offline run (local index over the caller's documents, packaged models) never imports the project's HTTP
    layer or any API client: the search service reaches the sources through the backend, and only the live backend
    builds clients. (httpx itself is loaded by LangGraph, so it is not in this list.)"""
    out = subprocess.run([sys.executable, "-c", OFFLINE_RUN], capture_output=True, text=True, check=True)
    loaded = set(eval(out.stdout.strip().splitlines()[-1]))
    assert loaded and not loaded & HTTP_CLIENT_MODULES, loaded
    assert not any(m.startswith("agent.tools.http.") for m in loaded), loaded


def test_the_answer_is_assembled_in_agent_answer_and_no_node_or_answer_module_imports_a_reasoner():
    """The Answer is built by agent/answer/assemble.py, which the report node only calls; what a node or the answer
    needs of the hypotheses (the leading one) lives there, not in one reasoner implementation (extractive's `winner`
    was imported by the report node)."""
    offenders = {
        module: sorted(
            node.module
            for node in ast.walk(ast.parse((REPO / module).read_text(encoding="utf-8")))
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("agent.reasoners")
        )
        for package in ("agent/nodes", "agent/answer")
        for module in (str(p.relative_to(REPO)) for p in sorted((REPO / package).glob("*.py")))
    }
    assert not {m: names for m, names in offenders.items() if names}
    report = ast.parse((REPO / "agent" / "nodes" / "report.py").read_text(encoding="utf-8"))
    assert any(isinstance(node, ast.ImportFrom) and node.module == "agent.answer.assemble" for node in ast.walk(report))
    assert len((REPO / "agent" / "nodes" / "report.py").read_text(encoding="utf-8").splitlines()) < 40
