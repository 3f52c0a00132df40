"""Chat models: which model each role uses and how it is called (roles), the providers and a local GGUF model behind
them (providers, local), their replies parsed and repaired (replies), a circuit breaker per endpoint (circuit), and
the role's call itself (model); the CLI's --llm flags (flags)."""
