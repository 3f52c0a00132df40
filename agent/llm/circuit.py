"""A circuit breaker per model endpoint, so the roles stop waiting on a dead or overloaded model."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from agent.llm.roles import RoleConfig


# ---------------------------------------------------------------------------------------------- circuit breaker
@dataclass
class CircuitBreaker:
    """Opens after `failures` consecutive provider failures (at once when nothing answers at all), so the roles
    stop waiting on a dead or overloaded model; after `cooldown_s` the model is tried again."""

    failures: int = 2
    cooldown_s: float = 300.0
    consecutive: int = 0
    opened_at: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def is_open(self) -> bool:
        with self._lock:
            if self.opened_at is None:
                return False
            if time.monotonic() - self.opened_at >= self.cooldown_s:
                self.opened_at, self.consecutive = None, 0  # half-open: the next call decides
                return False
            return True

    def record(self, ok: bool, unreachable: bool = False) -> None:
        with self._lock:
            self.consecutive = 0 if ok else self.consecutive + 1
            if not ok and (unreachable or self.consecutive >= self.failures):
                self.opened_at = time.monotonic()


_breakers: dict[tuple[str, str | None], CircuitBreaker] = {}
_breakers_lock = threading.Lock()


def breaker_for(config: RoleConfig) -> CircuitBreaker:
    """One breaker per model endpoint, shared by the roles that use it."""
    with _breakers_lock:
        key = (config.spec, config.base_url)
        if key not in _breakers:
            _breakers[key] = CircuitBreaker(config.breaker_failures, config.breaker_cooldown_s)
        return _breakers[key]


def reset_breakers() -> None:
    with _breakers_lock:
        _breakers.clear()
