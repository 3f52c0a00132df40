"""A database made before a column was added gets it when a server or worker starts on it, its runs kept."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from agent.service.database import ensure_schema

pytestmark = pytest.mark.slow


def test_a_database_from_before_the_options_column_gains_it_and_keeps_its_runs(database_url):
    asyncio.run(ensure_schema(database_url))
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE sparkit_runs DROP COLUMN options")  # as the table was first released
        conn.execute("INSERT INTO sparkit_users (user_id, name, key_hash) VALUES ('u', 'alice', 'h')")
        conn.execute("INSERT INTO sparkit_threads (thread_id, owner) VALUES ('t', 'u')")
        conn.execute("INSERT INTO sparkit_runs (run_id, thread_id, owner) VALUES ('r', 't', 'u')")
    asyncio.run(ensure_schema(database_url))
    asyncio.run(ensure_schema(database_url))  # and again: a second start changes nothing
    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT run_id, options FROM sparkit_runs").fetchall()
    assert rows == [("r", {})]
