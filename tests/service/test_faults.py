"""A database that is down, unknown or refuses the password: one line that names what failed and how to fix it,
exit 2 at the CLI, the password never shown. Which pacing and cache the live clients use is chosen by configuration."""

from __future__ import annotations

import pytest

pytest.importorskip("psycopg", reason="the service extra is not installed: pip install -e '.[service]'")

from agent.cli import main
from agent.errors import ConfigurationError
from agent.service.database import unavailable
from agent.tools.http.cache import ResponseCache
from agent.tools.http.shared import http_state

URL = "postgresql://team:s3cret-pw@db.example.org:6543/sparkit"


@pytest.mark.parametrize(
    ("error", "says"),
    [
        (
            'connection failed: FATAL:  password authentication failed for user "team"',
            "refused the password for user 'team'",
        ),
        ("connection failed: Connection refused\n\tIs the server running on that host", "is not reachable"),
        ('connection failed: FATAL:  database "sparkit" does not exist', "the database does not exist"),
        ('connection failed: could not translate host name "db.example.org"', "unknown host"),
    ],
)
def test_a_database_failure_is_one_line_naming_the_fix(error, says):
    message = str(unavailable(URL, Exception(error)))
    assert says in message and "db.example.org:6543/sparkit" in message and "SPARKIT_DATABASE_URL" in message
    assert "s3cret-pw" not in message and "\n" not in message


def test_no_database_configured_exits_2(monkeypatch, capsys):
    monkeypatch.delenv("SPARKIT_DATABASE_URL", raising=False)
    assert main(["worker"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "SPARKIT_DATABASE_URL" in err[0]


@pytest.mark.parametrize("command", [["serve"], ["worker"], ["users", "list"]])
def test_a_database_that_is_down_exits_2_with_one_line(command, capsys):
    url = "postgresql://team:s3cret-pw@127.0.0.1:1/sparkit"  # port 1: nothing listens, refused at once
    assert main([*command[:1], *command[1:], "--database-url", url]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "127.0.0.1:1/sparkit is not reachable" in err[0] and "s3cret-pw" not in err[0]


@pytest.mark.slow
def test_a_wrong_password_exits_2_naming_the_password(pg_cluster, capsys):
    assert main(["worker", "--database-url", pg_cluster.url(password="wrong-one")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "refused the password for user 'sparkit'" in err[0] and "wrong-one" not in err[0]


def test_pacing_and_cache_are_chosen_by_configuration(monkeypatch, tmp_path):
    monkeypatch.delenv("SPARKIT_HTTP_STATE", raising=False)
    cache, factory = http_state(tmp_path, True)
    assert type(cache) is ResponseCache and factory is None
    monkeypatch.setenv("SPARKIT_HTTP_STATE", "postgres")
    monkeypatch.delenv("SPARKIT_DATABASE_URL", raising=False)
    with pytest.raises(ConfigurationError, match="SPARKIT_DATABASE_URL"):
        http_state(tmp_path, True)
    monkeypatch.setenv("SPARKIT_DATABASE_URL", URL)
    cache, factory = http_state(tmp_path, True)  # connects lazily, at the first call
    assert type(cache).__name__ == "PostgresResponseCache" and factory is not None
    monkeypatch.setenv("SPARKIT_HTTP_STATE", "redis")
    with pytest.raises(ConfigurationError, match="local or postgres"):
        http_state(tmp_path, True)
