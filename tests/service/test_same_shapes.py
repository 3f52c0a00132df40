"""The calls LangGraph Studio makes to open a graph, run it, stop it at a node, edit the state there and fork from an
earlier checkpoint, made through langgraph-sdk against `langgraph dev` and against `sparkit serve` + a worker: each
response of `sparkit serve` has every key `langgraph dev`'s has, with the same JSON types (the values differ: ids,
times). Runs stop before `plan`, so neither server loads a model."""

from __future__ import annotations

import re
from typing import Any

import pytest
from langgraph_sdk import get_client

from tests.service.harness import Processes, sdk_client
from tests.test_studio_server import server  # noqa: F401 - the `langgraph dev` fixture

pytestmark = pytest.mark.slow

QUESTION = {"question": "Does vitamin D reduce fracture risk?"}
NOT_SERVED = [
    (r"info\.host", "deployment metadata of LangSmith hosting (SPARKIT names itself under `metadata`)"),
    (
        r"[a-z_]+(\[\])?\.metadata\.(user_id|created_by|from|langgraph_\w+)",
        "what langgraph-api stamps on runs and checkpoints from its deployment and auth (user, request, plan, host),"
        " and the thread's metadata it copies into each run's",
    ),
    (
        r"[a-z_]+(\[\])?\.metadata\.sparkit_run",
        "the run pins `langgraph dev` passes in the config (agent/nodes/parts.py)",
    ),
    (
        r"run\.kwargs\.(webhook|feedback_keys|temporary|subgraphs|resumable|checkpoint_during|durability)",
        "run options SPARKIT does not take (webhooks, feedback, temporary threads, subgraph streams; durability:"
        " always sync)",
    ),
    (
        r"run\.kwargs\.config\.(configurable\..+|metadata)",
        "langgraph-api's internal run config (auth, request, timings)",
    ),
    (r"run\.langsmith_session_name", "no LangSmith tracing session"),
    (
        r"[a-z_]+(\[\])?\.metadata\.thread_id",
        "LangGraph leaves thread_id out of the checkpoint metadata the worker writes (it is in each `checkpoint`)",
    ),
    (
        r"[a-z_]*thread\.(config|state_updated_at|error)",
        "a thread's stored config and last error: SPARKIT keeps them on its runs",
    ),
    (
        r"[a-z_]*thread\.metadata\.(graph_id|assistant_id)",
        "langgraph-api stamps a thread with the graph of its first run",
    ),
]
"""What `langgraph dev` answers that `sparkit serve` does not, with the reason (a path: call.key.key, [] a list)."""


def excused(where: str) -> bool:
    return any(re.fullmatch(pattern, where) for pattern, _ in NOT_SERVED)


async def studio_session(client: Any) -> dict[str, Any]:
    """Studio's calls, in its order; each response by a name."""
    seen: dict[str, Any] = {"info": await client.http.get("/info")}
    (assistant,) = await client.assistants.search(graph_id="sparkit")
    aid = assistant["assistant_id"]
    seen["assistant"] = await client.assistants.get(aid)
    seen["schemas"] = await client.assistants.get_schemas(aid)
    seen["graph"] = await client.assistants.get_graph(aid, xray=True)
    seen["subgraphs"] = await client.assistants.get_subgraphs(aid, recurse=True)
    thread = await client.threads.create(metadata={"from": "studio"})
    tid = thread["thread_id"]
    seen["thread"] = await client.threads.get(tid)
    seen["stopped"] = await client.runs.wait(tid, aid, input=QUESTION, interrupt_before=["plan"])
    seen["run"] = (await client.runs.list(tid))[0]
    seen["state"] = await client.threads.get_state(tid)
    seen["edit"] = await client.threads.update_state(tid, {"mode": "verify"}, as_node="__start__")
    seen["edited"] = await client.threads.get_state(tid)
    history = await client.threads.get_history(tid, limit=10)
    seen["history"] = history
    first = history[-1]["checkpoint"]["checkpoint_id"]
    seen["state_at"] = await client.threads.get_state(tid, checkpoint_id=first)
    seen["fork"] = await client.runs.wait(tid, aid, input=QUESTION, checkpoint_id=first, interrupt_before=["plan"])
    seen["interrupted_thread"] = await client.threads.get(tid)
    return seen


def missing(name: str, reference: Any, ours: Any) -> list[str]:
    """Where `ours` lacks a key `reference` has, or holds another JSON type (null on either side is not a type)."""
    if reference is None or ours is None:
        return []
    if isinstance(reference, dict):
        if not isinstance(ours, dict):
            return [f"{name}: {type(ours).__name__}, not an object"]
        found = []
        for key, value in reference.items():
            where = f"{name}.{key}"
            if key not in ours:
                found += [] if excused(where) else [f"{where}: missing"]
            else:
                found += missing(where, value, ours[key])
        return found
    if isinstance(reference, list):
        if not isinstance(ours, list):
            return [f"{name}: {type(ours).__name__}, not a list"]
        return [m for a, b in zip(reference, ours, strict=False) for m in missing(f"{name}[]", a, b)]
    number = (int, float)
    same = isinstance(ours, type(reference)) or (isinstance(reference, number) and isinstance(ours, number))
    return [] if same else [f"{name}: {type(ours).__name__}, not {type(reference).__name__}"]


async def test_studio_calls_get_langgraph_devs_shapes_from_sparkit_serve(server, processes: Processes):  # noqa: F811
    reference = await studio_session(get_client(url=server))
    processes.worker()
    ours = await studio_session(await sdk_client(processes, processes.add_user("alice")))
    assert ours["stopped"]["question"] == QUESTION["question"] and ours["state"]["next"] == ["plan"]
    assert ours["interrupted_thread"]["status"] == reference["interrupted_thread"]["status"] == "interrupted"
    differences = [m for name in reference for m in missing(name, reference[name], ours[name])]
    assert not differences, "\n".join(differences)
