"""A throwaway PostgreSQL cluster on 127.0.0.1 from the machine's binaries, for the service tests.

`initdb` and `postgres` refuse to run as root, so as root the cluster is created and started as the `postgres` user
(runuser) in a temporary folder it owns. Password authentication (scram) is on, so a wrong password fails as it would
on a real server. Debian puts the binaries in /usr/lib/postgresql/VERSION/bin, off the PATH; they are looked for there.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

USER = "sparkit"
PASSWORD = "throwaway-test-password"


def postgres_bin() -> Path | None:
    """The folder holding initdb and pg_ctl: on the PATH, else the newest /usr/lib/postgresql/*/bin; None if absent."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: _version(p.parent.parent.name))
    return versions[-1].parent if versions else None


def _version(name: str) -> int:
    return int(name) if name.isdigit() else 0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    port: int
    folder: Path
    bin: Path

    def url(self, database: str = "postgres", password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        _run_as_postgres(
            [str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop"], check=False
        )

    def restart(self) -> None:
        """`pg_ctl restart -m fast`: every session is ended (its clients see their connections close) and the server
        comes back on the same port with the same options; returns once it accepts connections again."""
        _run_as_postgres(
            [str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-l", str(self.folder / "log")]
            + ["-m", "fast", "-w", "restart"]  # with its log file: else the server would hold our stdout pipe open
        )

    def start(self) -> None:
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off -c max_connections=200"
        _run_as_postgres(
            [
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.folder / "data"),
                "-o",
                options,
                "-l",
                str(self.folder / "log"),
                "-w",
                "start",
            ]
        )


def _as_root() -> bool:
    return os.geteuid() == 0


def _run_as_postgres(command: list[str], *, check: bool = True) -> None:
    full = ["runuser", "-u", "postgres", "--", *command] if _as_root() else command
    done = subprocess.run(full, capture_output=True, text=True, timeout=120)
    if check and done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {(done.stderr or done.stdout).strip()[-500:]}")


@contextlib.contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    """A started cluster, stopped and deleted afterwards."""
    binaries = postgres_bin()
    if binaries is None:
        raise FileNotFoundError("PostgreSQL binaries (initdb, pg_ctl) not found on the PATH or in /usr/lib/postgresql")
    folder = Path(tempfile.mkdtemp(prefix="sparkit-pg-"))
    try:
        (folder / "pw").write_text(PASSWORD + "\n")
        if _as_root():
            shutil.chown(folder, "postgres", "postgres")
            shutil.chown(folder / "pw", "postgres", "postgres")
        _run_as_postgres(
            [
                str(binaries / "initdb"),
                "-D",
                str(folder / "data"),
                "-U",
                USER,
                "--pwfile",
                str(folder / "pw"),
                "--auth-host=scram-sha-256",
                "--auth-local=scram-sha-256",
                "-E",
                "UTF8",
                "--no-sync",
            ]
        )
        cluster = Cluster(_free_port(), folder, binaries)
        cluster.start()
        try:
            yield cluster
        finally:
            cluster.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
