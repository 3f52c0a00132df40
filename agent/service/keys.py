"""Per-user API keys: shown once when made, stored only as a hash.

A key is 32 random bytes (URL-safe text, prefix `sk-sparkit-`), so a plain SHA-256 of it cannot be reversed or
guessed; a slow password hash (bcrypt, argon2) is for low-entropy passwords and would only slow every request."""

from __future__ import annotations

import hashlib
import secrets
import uuid

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from agent.errors import InputError

KEY_PREFIX = "sk-sparkit-"


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _check_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > 100 or any(not (c.isalnum() or c in "-_.@") for c in name):
        raise InputError("a user name is 1 to 100 letters, digits or - _ . @")
    return name


async def add_user(conn: AsyncConnection, name: str) -> str:
    """Create a user and return their key (the only time it is shown). A taken name raises InputError."""
    name = _check_name(name)
    key = new_key()
    cursor = await conn.execute(
        "INSERT INTO sparkit_users (user_id, name, key_hash) VALUES (%s, %s, %s) ON CONFLICT (name) DO NOTHING",
        (uuid.uuid4().hex, name, key_hash(key)),
    )
    if cursor.rowcount == 0:
        raise InputError(f"user {name!r} exists; `sparkit users rotate {name}` gives them a new key")
    return key


async def rotate_key(conn: AsyncConnection, name: str) -> str:
    """A new key for a user (the old one stops working at once)."""
    key = new_key()
    cursor = await conn.execute(
        "UPDATE sparkit_users SET key_hash = %s, revoked_at = NULL WHERE name = %s", (key_hash(key), _check_name(name))
    )
    if cursor.rowcount == 0:
        raise InputError(f"no user {name!r}")
    return key


async def revoke(conn: AsyncConnection, name: str) -> None:
    cursor = await conn.execute("UPDATE sparkit_users SET revoked_at = now() WHERE name = %s", (_check_name(name),))
    if cursor.rowcount == 0:
        raise InputError(f"no user {name!r}")


async def list_users(conn: AsyncConnection) -> list[tuple[str, bool]]:
    rows = await (await conn.execute("SELECT name, revoked_at IS NULL FROM sparkit_users ORDER BY name")).fetchall()
    return [(str(name), bool(active)) for name, active in rows]


async def user_for_key(pool: AsyncConnectionPool, key: str) -> str | None:
    """The user id a key belongs to, or None (unknown or revoked)."""
    if not key.startswith(KEY_PREFIX) or len(key) > 200:
        return None
    async with pool.connection() as conn:
        row = await (
            await conn.execute(
                "SELECT user_id FROM sparkit_users WHERE key_hash = %s AND revoked_at IS NULL", (key_hash(key),)
            )
        ).fetchone()
    return str(row[0]) if row else None
