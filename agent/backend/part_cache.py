"""The cache of a backend's parts: each part (the index, the offline judge, the chat roles, the reranker, ...) is built
once for exactly the settings it reads (`part(kind, key, build)`), so changing a setting rebuilds only the parts that
read it (agent/backend/__init__.py assembles them).

`build_lock` is held while a backend, a part of one or a judge is built: two runs starting at once in a fresh process,
or two server jobs, would otherwise import transformers and load the same models concurrently, which fails (`cannot
import name 'AutoModel'`). The second waits, then finds the first's build in the cache."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

_parts: OrderedDict[tuple[str, str], Any] = OrderedDict()
lock = threading.Lock()
"""Guards the caches (this one and agent.backend's cache of assembled backends); held only for a lookup or an insert."""
build_lock = threading.RLock()
CACHE_SIZE = 4
"""How many of each kind of part are kept (and how many assembled backends)."""
T = TypeVar("T")


def clear_parts() -> None:
    with lock:
        _parts.clear()


def part(kind: str, key: Any, build: Callable[[], T]) -> T:
    """The cached `kind` part built from exactly `key` (the settings it reads), built once by `build`."""
    cache_key = (kind, json.dumps(key, sort_keys=True, default=str))
    with lock:
        if cache_key in _parts:
            _parts.move_to_end(cache_key)
            return _parts[cache_key]
    with build_lock:
        with lock:
            if cache_key in _parts:
                return _parts[cache_key]
        built = build()
        with lock:
            _parts[cache_key] = built
            same_kind = [k for k in _parts if k[0] == kind]
            for old in same_kind[: max(0, len(same_kind) - CACHE_SIZE)]:  # as many of each kind as backends cached
                del _parts[old]
    return built
