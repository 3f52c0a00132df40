"""A throwaway PostgreSQL 15 for the service tests (one cluster per session, a fresh database per test); skipped with
the reason when the binaries or the service extra are missing."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.harness import Processes
from tests.service.throwaway_postgres import Cluster, postgres_bin, throwaway_cluster


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    if postgres_bin() is None:
        pytest.skip(
            "PostgreSQL binaries (initdb, pg_ctl) not found on the PATH or in /usr/lib/postgresql/*/bin: "
            "apt-get install postgresql (.ci/run does)"
        )
    for module in ("psycopg", "psycopg_pool", "procrastinate", "langgraph.checkpoint.postgres", "uvicorn"):
        pytest.importorskip(module, reason="the service extra is not installed: pip install -e '.[service]'")
    with throwaway_cluster() as cluster:
        yield cluster


@pytest.fixture
def database_url(pg_cluster: Cluster) -> str:
    return pg_cluster.create_database("t" + uuid.uuid4().hex[:12])


@pytest.fixture
def processes(database_url: str, tmp_path: Path) -> Iterator[Processes]:
    (tmp_path / "logs").mkdir()
    procs = Processes(database_url, tmp_path / "service-home", tmp_path / "logs")
    try:
        yield procs
    finally:
        procs.stop()
