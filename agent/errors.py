"""Errors with messages fit for a user: one line, no secrets."""


class SparkitError(Exception):
    """Base class; the CLI prints `str(error)` and exits with `exit_code`."""

    exit_code = 1


class InputError(SparkitError):
    """Malformed question, options, preset or settings."""

    exit_code = 2


class CorpusError(SparkitError):
    """Missing corpus or corrupt index."""

    exit_code = 2


class ConfigurationError(SparkitError):
    """A configured provider is missing its package or key."""

    exit_code = 2


class SourceError(SparkitError):
    """A literature source failed beyond its retries. The run continues with the others."""

    def __init__(self, source: str, message: str):
        super().__init__(f"{source}: {message}")
        self.source = source
