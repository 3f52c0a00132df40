"""Prompt templates for the chat-model roles. Evidence is always fenced and declared to be data."""

from agent.prompts.roles import (
    CLAIMS_SYSTEM,
    DISCRIMINATE_SYSTEM,
    HYPOTHESIZE_SYSTEM,
    PLAN_SYSTEM,
    STANCE_SYSTEM,
    SYNTHESIZE_SYSTEM,
    fence_evidence,
)

__all__ = [
    "CLAIMS_SYSTEM",
    "DISCRIMINATE_SYSTEM",
    "HYPOTHESIZE_SYSTEM",
    "PLAN_SYSTEM",
    "STANCE_SYSTEM",
    "SYNTHESIZE_SYSTEM",
    "fence_evidence",
]
