"""report: the run's Answer, assembled by agent.answer.assemble from the state; this node only fetches the backend's
calibrators and what it searched, and reports the answer on the progress stream."""

from __future__ import annotations

from agent.answer.assemble import assemble, stopped_before_plan
from agent.nodes.parts import RunParts
from agent.state import ResearchState
from agent.tracing.progress import emit


async def report(state: ResearchState, parts: RunParts) -> ResearchState:
    if state.get("plan") is None:
        answer = stopped_before_plan(state)
    else:
        backend = await parts.backend()
        answer = assemble(state, parts.settings, backend.calibrator, backend.offline_calibrator, backend.searched)
    emit(
        {
            "node": "report",
            "status": answer.status.value,
            "answer": answer.answer,  # the one answer progress states: synthesize's draft may be declined here
            "confidence": answer.confidence,
            "citations": len(answer.citations),
        }
    )
    return {"answer": answer, "papers": answer.papers}
