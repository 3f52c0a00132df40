"""The checkpoint database under concurrent runs: two runs started together in a fresh home both open it."""

from __future__ import annotations

import asyncio
import sqlite3

from agent.api.checkpoint import load_run_settings, save_run_settings, sqlite_checkpointer


def test_two_first_runs_open_a_fresh_checkpoint_database_together(tmp_path):
    # Without the WAL switch before the saver's setup, about 5 in 100 such pairs failed "database is locked".
    async def run(path, run_id):
        async with sqlite_checkpointer(path) as saver:
            await save_run_settings(saver, run_id, {"run": run_id})
            return await load_run_settings(saver, run_id)

    async def pairs():
        results = []
        for i in range(100):
            path = tmp_path / f"home{i}" / "checkpoints.sqlite"
            results.append(await asyncio.gather(run(path, "a"), run(path, "b")))
        return results

    assert all(pair == [{"run": "a"}, {"run": "b"}] for pair in asyncio.run(pairs()))
    with sqlite3.connect(tmp_path / "home0" / "checkpoints.sqlite") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
