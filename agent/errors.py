"""Errors with messages fit for a user: one line, no secrets.

Input and corpus errors are also ValueErrors: langgraph-api passes a ValueError's message through to the REST client
(`{"error": "InputError", "message": ...}`) and replaces any other exception's with "An internal error occurred", so
Studio users see the real reason. A ConfigurationError is not one (the chat roles treat a ValueError from a model as
malformed output and fall back, while a refused key must stop the run); the graph's node wrapper re-raises it as a
ReportedConfigurationError, which is both, once it leaves a node.
"""


class SparkitError(Exception):
    """Base class; the CLI prints `str(error)` and exits with `exit_code`."""

    exit_code = 1


class InputError(SparkitError, ValueError):
    """Malformed question, options, preset or settings."""

    exit_code = 2


class CorpusError(SparkitError, ValueError):
    """Missing corpus or corrupt index."""

    exit_code = 2


class ConfigurationError(SparkitError):
    """A configured provider is missing its package or key."""

    exit_code = 2


class ReportedConfigurationError(ConfigurationError, ValueError):
    """A ConfigurationError on its way out of the graph, typed so the server shows its message."""


class SourceError(SparkitError):
    """A literature source failed beyond its retries. The run continues with the others."""

    def __init__(self, source: str, message: str):
        super().__init__(f"{source}: {message}")
        self.source = source
