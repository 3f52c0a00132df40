"""SPARKIT: a LangGraph research agent for grounded, hypothesis-driven answers to hard STEM questions.

    from agent import ask
    answer = ask("Does hypoglycemia increase the risk of dementia?")

The graph itself is `agent.graph.graph` (lazy: importing `agent` stays cheap).
"""

from typing import Any

__all__ = ["Answer", "Context", "aask", "aresume", "ask", "averify", "resume", "stance_judge", "verify"]


def __getattr__(name: str) -> Any:
    if name in ("aask", "ask", "averify", "verify", "aresume", "resume", "stance_judge"):
        from agent import api

        return getattr(api, name)
    if name == "Context":
        from agent.config import Context

        return Context
    if name == "Answer":
        from agent.records import Answer

        return Answer
    raise AttributeError(name)
