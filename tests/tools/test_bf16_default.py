"""bf16 index encoding is the default where the CPU computes bf16 natively (issue 46, item 5: BEIR-SciFact nDCG@10
held within 0.005 of fp32); SPARKIT_BULK_BF16=0 keeps fp32, and a CPU without native bf16 never uses it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from agent.tools.index.local_index import estimated_build_s
from agent.tools.models.encoder import BF16_BUILD_SAVING, BF16_ENV, bf16_bulk_encoding


@pytest.fixture
def cpu(monkeypatch):
    """Sets what /proc/cpuinfo says."""
    real = Path.read_text
    flags: list[str] = []

    def read_text(self, *args, **kwargs):
        if str(self) == "/proc/cpuinfo":
            return f"processor\t: 0\nflags\t\t: fpu sse avx2 {' '.join(flags)}\n"
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)
    return flags


def test_bf16_is_the_default_on_a_cpu_that_computes_it_natively(cpu, monkeypatch):
    monkeypatch.delenv(BF16_ENV, raising=False)
    cpu.append("avx512_bf16")
    assert bf16_bulk_encoding()
    monkeypatch.setenv(BF16_ENV, "0")
    assert not bf16_bulk_encoding()
    monkeypatch.setenv(BF16_ENV, "1")
    assert bf16_bulk_encoding()


def test_no_bf16_without_native_support_whatever_is_asked(cpu, monkeypatch):
    for value in ("", "1"):
        monkeypatch.setenv(BF16_ENV, value)
        assert not bf16_bulk_encoding()


def test_the_build_estimate_and_the_docs_give_the_one_measured_speed_up(cpu, monkeypatch):
    """The bf16 saving was once given three ways (README, encoder, the estimate); now one constant, measured, that the
    estimate uses and the docs state."""
    cpu.append("avx512_bf16")
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    monkeypatch.delenv(BF16_ENV, raising=False)
    bf16 = estimated_build_s(5183) - 3.0
    monkeypatch.setenv(BF16_ENV, "0")
    assert (estimated_build_s(5183) - 3.0) / bf16 == pytest.approx(BF16_BUILD_SAVING)
    doc = (Path(__file__).resolve().parents[2] / "docs" / "offline-index.md").read_text(encoding="utf-8")
    stated = re.search(r"about ([\d.]+) times less CPU", doc)
    assert stated and float(stated.group(1)) == BF16_BUILD_SAVING
