"""The graph's LLM roles (plan, hypothesize, discriminate, synthesize, extract claims, adjudicate): extractive (offline,
no model) and chat-model based, with the checks a model's output must pass."""
