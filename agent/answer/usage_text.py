"""The per-node usage table under an answer (`sparkit ask`) and in a trace view: one line per graph node."""

from __future__ import annotations

from typing import Any

from agent.common.text import fmt_seconds


def render_by_node(by_node: dict[str, dict[str, Any]]) -> str:
    """Per-node usage table (also printed at the end of `sparkit ask`)."""
    lines = [
        f"  {'NODE':<14} {'RUNS':>4} {'TIME':>8} {'LLM':>4} {'TOKENS IN/OUT':>15} {'COST':>9} {'SOURCES':>7}  BY SOURCE"
    ]
    for node, u in by_node.items():
        sources = ", ".join(f"{k} {v}" for k, v in sorted((u.get("calls_by_source") or {}).items()))
        lines.append(
            f"  {node:<14} {u.get('runs', 0):>4} {fmt_seconds(float(u.get('seconds') or 0)):>8} "
            f"{u.get('llm_calls', 0):>4} "
            f"{str(u.get('tokens_in', 0)) + '/' + str(u.get('tokens_out', 0)):>15} "
            f"{'$' + format(float(u.get('cost_usd') or 0), '.4f'):>9} "
            f"{u.get('source_calls', 0):>7}  {sources}".rstrip()
        )
    return "\n".join(lines)
