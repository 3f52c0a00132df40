"""Settings by concern: presets as data files applied once at validation, every spelling of a field, the schema
Studio renders, and a backend cache keyed on exactly the backend group."""

from __future__ import annotations

import json
import re

import pytest

from agent.api import make_context
from agent.backend import backend_for, backend_key, clear_backend_cache
from agent.config import FLAT_NAMES, GROUPS, PACKAGED_PRESETS, PRESETS_DIR, Context
from agent.errors import InputError
from agent.settings.base import LEXICONS_DIR

DOCUMENTS = [
    {
        "id": "d1",
        "title": "Vitamin D and fracture risk",
        "abstract": "Vitamin D supplementation reduced hip fracture risk in adults over 65.",
    },
    {
        "id": "d2",
        "title": "Coral reef bleaching",
        "abstract": "Ocean warming drives coral bleaching events across the Pacific.",
    },
]


def test_backend_for_builds_a_new_reranker_for_an_ablation():
    """The backend cache used to omit enable_semantic_rerank: the ablation silently got the cached semantic reranker."""
    clear_backend_cache()
    semantic = backend_for(Context(stance_model="heuristic"), DOCUMENTS)
    lexical = backend_for(Context(stance_model="heuristic", enable_semantic_rerank=False), DOCUMENTS)
    assert semantic.reranker.semantic is True
    assert lexical is not semantic and lexical.reranker.semantic is False
    # settings no part of the backend reads reuse the cached backend (no second model or index load)
    assert (
        backend_for(
            Context(stance_model="heuristic", court={"support_cap": 1}, max_claims=0, rerank_top_k=3), DOCUMENTS
        )
        is semantic
    )


def test_a_chat_model_setting_never_reopens_the_index(monkeypatch):
    """Each part of the backend is cached on its own group: a new deadline rebuilds the chat roles, not the index."""
    from agent.backend import search_parts as backend_module
    from agent.llm.providers import register_chat_model, unregister_chat_model

    opened = []
    real = backend_module.offline_indexes
    monkeypatch.setattr(backend_module, "offline_indexes", lambda *args: opened.append(args) or real(*args))
    register_chat_model("fake:deadline", object())
    try:
        clear_backend_cache()
        first = backend_for(Context(stance_model="heuristic", llm="fake:deadline", llm_deadline_s=30), DOCUMENTS)
        second = backend_for(Context(stance_model="heuristic", llm="fake:deadline", llm_deadline_s=90), DOCUMENTS)
    finally:
        unregister_chat_model("fake:deadline")
        clear_backend_cache()
    assert (first.reasoner.fast.config.deadline_s, second.reasoner.fast.config.deadline_s) == (30, 90)
    assert len(opened) == 1 and second.sources == first.sources and second.reranker is first.reranker


PART_GROUPS = ("corpus", "models", "judges")


def _changed(value, field):
    changed = {bool: lambda v: not v, int: lambda v: v + 1, float: lambda v: v + 0.5, list: lambda v: v[:1]}
    special = {
        "backend": "live",
        "reranker": "cohere",
        "stance_model": "heuristic",
        "calibration": "raw",
        "use_library": "off",
        "stance_readers": ["reader.npz"],
    }
    if field in special:
        return special[field]
    return changed[type(value)](value) if type(value) in changed else "x"


@pytest.mark.parametrize(
    ("group", "field"),
    [(g, f) for g in PART_GROUPS for f in GROUPS[g].model_fields]
    + [("retrieval", "reranker"), ("retrieval", "enable_semantic_rerank")],
)
def test_the_backend_key_changes_with_every_setting_a_part_reads(group, field):
    default = Context()
    section = getattr(default, group)
    new = default.model_copy(
        update={group: section.model_copy(update={field: _changed(getattr(section, field), field)})}
    )
    assert backend_key(new) != backend_key(default)


def test_the_backend_key_ignores_every_setting_no_part_reads():
    busy = Context(
        preset="research_max",
        court={"support_cap": 1},
        verification={"max_claims": 0},
        ablations={"enable_hypotheses": False},
        answer={"abstain_threshold": 0.5},
        rerank_top_k=3,
    )
    assert backend_key(busy) == backend_key(Context())


def test_earlier_spellings_name_the_setting_where_it_lives_now():
    old = Context(**{"backend.llm_deadline_s": 30, "court.abstain_threshold": 0.4, "backend.name": "live"})
    assert (old.models.llm_deadline_s, old.answer.abstain_threshold, old.corpus.backend) == (30, 0.4, "live")
    grouped = Context(
        backend={"name": "live", "stance_model": "heuristic", "reranker": "cohere"}
    )  # a trace's settings of before
    assert (grouped.corpus.backend, grouped.judges.stance_model, grouped.retrieval.reranker) == (
        "live",
        "heuristic",
        "cohere",
    )
    assert (
        Context(backend="live").corpus.backend == "live"
        and Context(abstain_threshold=0.2).answer.abstain_threshold == 0.2
    )
    with pytest.raises(ValueError, match="nonsense"):
        Context(**{"backend.nonsense": 1})


def test_the_section_weights_are_a_data_file():
    data = json.loads((LEXICONS_DIR / "section_weights.json").read_text())
    assert data["description"] and len(data["entries"]) == 62
    assert Context().court.section_weights == data["entries"] and Context().court.section_weights["methods"] == 0.7
    mine = Context(section_weights={"methods": 0.2}).court.section_weights
    assert mine == {"methods": 0.2} and Context().court.section_weights["methods"] == 0.7  # the default is not shared


def test_descriptions_say_what_a_setting_does_not_how_it_was_measured():
    history = re.compile(r"\bseed 0\d\d|\bstop \d|\bF1\b|\bissue \d|evals/README|accuracy \d|precision when answering")
    for group, model in GROUPS.items():
        for field, info in model.model_fields.items():
            assert not history.search(info.description or ""), f"{group}.{field}: {info.description}"


def test_user_presets_sit_beside_the_packaged_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("SPARKIT_HOME", str(tmp_path))
    (tmp_path / "presets").mkdir()
    (tmp_path / "presets" / "mine.json").write_text(
        json.dumps({"description": "My runs.", "court": {"n_hypotheses": 6}})
    )
    (tmp_path / "presets" / "fast.json").write_text(
        json.dumps({"court": {"n_hypotheses": 7}})
    )  # cannot replace a packaged one
    assert Context(preset="mine").court.n_hypotheses == 6 and Context(preset="fast").court.n_hypotheses == 3
    assert Context(preset="mine", n_hypotheses=2).court.n_hypotheses == 2
    assert "mine" in Context.model_json_schema()["properties"]["preset"]["enum"]
    with pytest.raises(ValueError, match="unknown preset 'theirs'"):
        Context(preset="theirs")


def test_presets_are_data_files_applied_once_at_validation():
    assert sorted(p.stem for p in PRESETS_DIR.glob("*.json")) == sorted(PACKAGED_PRESETS)
    fast = Context(preset="fast")
    assert (fast.court.n_hypotheses, fast.retrieval.rerank_top_k, fast.budget.max_source_calls) == (3, 15, 40)
    assert fast.court.support_cap == Context().court.support_cap  # not in the preset: the documented default
    assert Context(preset="fast", n_hypotheses=5).court.n_hypotheses == 5  # explicit beats the preset
    for name in PACKAGED_PRESETS:
        data = json.loads((PRESETS_DIR / f"{name}.json").read_text())
        assert data.pop("description")
        assert set(data) <= set(GROUPS), name
        Context.model_validate({"preset": name, **data})  # every preset names real fields with valid values


def test_flat_dotted_and_grouped_names_mean_the_same_setting():
    spellings = [
        Context(max_claims=2),
        Context(**{"verification.max_claims": 2}),
        Context(verification={"max_claims": 2}),
    ]
    assert all(c.verification.max_claims == 2 for c in spellings)
    assert Context(backend="live").corpus.backend == "live"
    assert set(FLAT_NAMES) >= {"max_claims", "support_cap", "enable_semantic_rerank", "recursion_limit", "corpus_path"}
    with pytest.raises(ValueError):
        Context(max_claimz=2)


def test_make_context_layers_overrides_and_reapplies_a_new_preset():
    base = Context(preset="fast", max_claims=0)
    assert make_context(base, support_cap=2).court.support_cap == 2
    assert make_context(base, support_cap=2).verification.max_claims == 0  # the caller's setting survives
    assert make_context(base, preset="research_max").court.n_hypotheses == 5  # the new preset fills the rest
    assert make_context({"preset": "fast"}, **{"court.support_cap": 3}).court.support_cap == 3
    with pytest.raises(InputError, match=r"invalid setting court.support_cap"):
        make_context(None, support_cap="many")


def test_every_setting_is_described_and_the_studio_schema_has_no_references():
    schema = Context.model_json_schema()
    assert "$defs" not in schema and "$ref" not in json.dumps(schema)
    for group, model in GROUPS.items():
        section = schema["properties"][group]
        assert section["description"] and section["type"] == "object"
        for field in model.model_fields:
            prop = section["properties"][field]
            assert prop.get("description"), f"{group}.{field} has no description"
            assert "default" not in prop and "Default: " in prop["description"], (
                f"{group}.{field}: default not described"
            )


def test_every_entry_point_runs_the_same_preset_when_none_is_named(monkeypatch, tmp_path):
    """`sparkit mcp` used to default to `fast` while the CLI, the Python API and Studio ran `default` (issue 39)."""
    import asyncio

    import agent.api as api
    from agent.api.mcp_server import build_server
    from agent.cli import build_parser
    from agent.cli.run import _settings_overrides

    DEFAULT_PRESET = Context().preset  # what a Context that names none runs (agent.config.DEFAULT_PRESET)

    # the MCP tools' schemas, as a client sees them
    tools = {t.name: t for t in asyncio.run(build_server().list_tools())}
    assert {name: tools[name].input_schema["properties"]["preset"]["default"] for name in ("ask", "verify")} == {
        "ask": DEFAULT_PRESET,
        "verify": DEFAULT_PRESET,
    }
    # the CLI's settings, for every run subcommand
    for argv in (["ask", "q?"], ["verify", "a claim"], ["resume", "abc"]):
        assert make_context(None, **_settings_overrides(build_parser().parse_args(argv))).preset == DEFAULT_PRESET
    # the Python API: what a run is given when nothing is named
    seen = []

    async def captured(graph_input, settings, *args, **kwargs):
        seen.append(settings.preset)

    monkeypatch.setenv("SPARKIT_HOME", str(tmp_path))
    monkeypatch.setattr(api.engine, "traced_run", captured)
    api.ask("Does aspirin reduce fever?")
    api.verify("Aspirin reduces fever.")
    assert seen == [DEFAULT_PRESET, DEFAULT_PRESET]
    # Studio and the server: the context schema's default, and a context without a preset
    assert Context.model_json_schema()["properties"]["preset"]["default"] == DEFAULT_PRESET
    assert make_context({}).preset == DEFAULT_PRESET == "default"
