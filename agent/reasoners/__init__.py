"""Implementations of the graph's LLM roles: extractive (offline, no model) and chat-model based."""
