"""The backend of the schema fuzzer's worker (`sparkit worker --import tests.service.fuzz_backend`): the scripted one
of tests/service/scripted.py under every backend name a generated run may ask for, so that no fuzzed run loads the
packaged models or reaches the network, whatever its `context.backend` says."""

from __future__ import annotations

from agent.backend import register_backend
from tests.fakes import make_backend
from tests.service.scripted import RECORDS, SlowListSource

for name in ("offline", "live"):
    register_backend(name, make_backend([SlowListSource(RECORDS)]))
