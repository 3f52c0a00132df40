"""The run's settings (the graph's context schema), grouped by concern, with named presets stored as data files.

    Context(max_claims=3)                        # flat names still work: each field name is unique
    Context(verification={"max_claims": 3})      # or by group, as Studio's form and `sparkit presets -v` show it
    Context(**{"verification.max_claims": 3})    # or dotted, as `--set verification.max_claims=3`

Nine groups, each read by one part of the code: `corpus` (what is searched: the offline index, the library or live
sources), `models` (the chat models behind the LLM roles), `judges` (the stance judge and the confidence's calibration),
`retrieval` (queries to sources, reranking, citation hops), `court` (hypotheses, discrimination, how evidence is
weighed, verdicts), `answer` (when the answer abstains), `verification` (answer-claim checks), `budget` (hard caps) and
`ablations` (feature switches). The backend builds each of its parts from its own group (agent/backend/__init__.py), so
a chat-model setting never reopens the index; the groups are defined in agent/settings, one module per concern, and this
module assembles them. Every tuning constant lives in a group with a description of what it does, so Studio shows it and
an eval can change it with `--set`; word lists a setting defaults to are data files (agent/lexicons). Spellings of
earlier versions (`backend.llm`, `court.abstain_threshold`) still name their field.

A preset (agent/presets/<name>.json, like PaperQA2's configs, or the user's own in $SPARKIT_HOME/presets) fills every
field the caller did not set; it is applied once, when the Context is validated, so a Context always holds the values
a run uses.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from agent.settings.base import SettingsGroup
from agent.settings.models import JudgeSettings, ModelSettings
from agent.settings.reasoning import (
    AblationSettings,
    AnswerSettings,
    BudgetSettings,
    CourtSettings,
    VerificationSettings,
)
from agent.settings.sources import CorpusSettings, RetrievalSettings

PresetName = str
"""A packaged preset (agent/presets: fast, default, research_max) or one of the user's ($SPARKIT_HOME/presets)."""
PACKAGED_PRESETS: tuple[str, ...] = ("fast", "default", "research_max")
DEFAULT_PRESET: PresetName = "default"
"""The preset of a run that names none, from every entry point: CLI, Python API, MCP tools, Studio / the server."""
PRESETS_DIR = Path(__file__).resolve().parent / "presets"


def sparkit_home() -> Path:
    """Data directory for indexes, checkpoints, traces and the HTTP cache (SPARKIT_HOME)."""
    return Path(os.environ.get("SPARKIT_HOME") or Path.home() / ".sparkit").expanduser()


def user_presets_dir() -> Path:
    """Where a user's own presets live ($SPARKIT_HOME/presets/<name>.json), beside the packaged ones."""
    return sparkit_home() / "presets"


GROUPS: dict[str, type[SettingsGroup]] = {
    "corpus": CorpusSettings,
    "models": ModelSettings,
    "judges": JudgeSettings,
    "retrieval": RetrievalSettings,
    "court": CourtSettings,
    "answer": AnswerSettings,
    "verification": VerificationSettings,
    "budget": BudgetSettings,
    "ablations": AblationSettings,
}
FLAT_NAMES: dict[str, str] = {name: group for group, model in GROUPS.items() for name in model.model_fields}
"""Every field's flat name -> its group (names are unique across groups)."""
LEGACY_GROUPS = ("backend",)
"""Group names of earlier versions (`backend.llm`, `--set backend.name=live`, a trace's `{"backend": {...}}`): each
field is placed in the group it belongs to now, as are fields named under a group they have since left
(`court.abstain_threshold` is `answer.abstain_threshold`)."""
_LEGACY_FIELDS = {"name": "backend"}  # backend.name is corpus.backend


def _place(tree: dict[str, Any], group: str, field: str, value: Any) -> None:
    tree.setdefault(group, {})[field] = value


def settings_tree(data: Mapping[str, Any] | BaseModel | None) -> dict[str, Any]:
    """Caller input in any accepted spelling (flat, dotted, by group, group models, an earlier version's group) as
    {group: {field: value}} plus `preset`; unknown keys are kept so validation names them."""
    if isinstance(data, BaseModel):
        data = data.model_dump(exclude_unset=True)
    tree: dict[str, Any] = {}
    for key, value in (data or {}).items():
        if key == "preset":
            tree["preset"] = value
        elif (key in GROUPS or key in LEGACY_GROUPS) and isinstance(value, (Mapping, BaseModel)):
            for field, inner in _items(value):
                _place_field(tree, key, field, inner)
        elif "." in key and (group := key.split(".", 1)[0]) in (*GROUPS, *LEGACY_GROUPS):
            _place_field(tree, group, key.split(".", 1)[1], value)
        elif key in FLAT_NAMES:
            _place(tree, FLAT_NAMES[key], key, value)
        else:
            tree[key] = value
    return tree


def _place_field(tree: dict[str, Any], group: str, field: str, value: Any) -> None:
    """`group.field` where it is now: in `group`, else (a group or field an earlier version named) in its own group."""
    if group in GROUPS and field in GROUPS[group].model_fields:
        _place(tree, group, field, value)
        return
    field = _LEGACY_FIELDS.get(field, field) if group in LEGACY_GROUPS else field
    if field in FLAT_NAMES:
        _place(tree, FLAT_NAMES[field], field, value)
    else:
        _place(tree, group if group in GROUPS else FLAT_NAMES.get(field, group), field, value)  # validation names it


def _items(value: Mapping[str, Any] | BaseModel) -> list[tuple[str, Any]]:
    return list((value.model_dump(exclude_unset=True) if isinstance(value, BaseModel) else value).items())


def merge_trees(*trees: Mapping[str, Any]) -> dict[str, Any]:
    """Later trees win, field by field inside each group."""
    merged: dict[str, Any] = {}
    for tree in trees:
        for key, value in tree.items():
            if key in GROUPS and isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = copy.deepcopy(value)
    return merged


def available_presets() -> dict[str, Path]:
    """Every preset a run may name -> its file: the packaged ones, then the user's (a user file named like a packaged
    preset does not replace it: an eval's `fast` stays the documented one)."""
    found = {name: PRESETS_DIR / f"{name}.json" for name in PACKAGED_PRESETS}
    user = user_presets_dir()
    if user.is_dir():
        for path in sorted(user.glob("*.json")):
            found.setdefault(path.stem, path)
    return found


def load_preset(name: str) -> dict[str, Any]:
    """A preset as a settings tree (its `description` left out)."""
    path = available_presets()[name]
    return copy.deepcopy(_read_preset(path, path.stat().st_mtime_ns))


@cache
def _read_preset(path: Path, mtime_ns: int) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"preset {path} is not readable JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"preset {path} must hold a JSON object of settings")
    data.pop("description", None)
    return settings_tree(data)


def preset_description(name: str) -> str:
    return str(json.loads(available_presets()[name].read_text(encoding="utf-8")).get("description", ""))


class Context(BaseModel):
    """Run settings by concern. Fields the caller leaves unset take the preset's value, then the documented default."""

    model_config = ConfigDict(extra="forbid")

    preset: PresetName = Field(
        DEFAULT_PRESET,
        description="Named preset: fast, default or research_max (agent/presets/<name>.json), or one of your own "
        "($SPARKIT_HOME/presets/<name>.json). Explicit fields override it.",
    )
    corpus: CorpusSettings = Field(default_factory=CorpusSettings, description=CorpusSettings.__doc__)
    models: ModelSettings = Field(default_factory=ModelSettings, description=ModelSettings.__doc__)
    judges: JudgeSettings = Field(default_factory=JudgeSettings, description=JudgeSettings.__doc__)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings, description=RetrievalSettings.__doc__)
    court: CourtSettings = Field(default_factory=CourtSettings, description=CourtSettings.__doc__)
    answer: AnswerSettings = Field(default_factory=AnswerSettings, description=AnswerSettings.__doc__)
    verification: VerificationSettings = Field(
        default_factory=VerificationSettings, description=VerificationSettings.__doc__
    )
    budget: BudgetSettings = Field(default_factory=BudgetSettings, description=BudgetSettings.__doc__)
    ablations: AblationSettings = Field(default_factory=AblationSettings, description=AblationSettings.__doc__)

    _explicit: dict[str, Any] = PrivateAttr(default_factory=dict)

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, name: str) -> str:
        if name not in (known := available_presets()):
            raise ValueError(
                f"unknown preset {name!r}; known: {', '.join(known)} (your own: {user_presets_dir()}/<name>.json)"
            )
        return name

    @model_validator(mode="wrap")
    @classmethod
    def _apply_preset(cls, data: Any, handler: Any) -> Context:
        """The one place a preset is applied: the caller's values over the preset's over the defaults."""
        if isinstance(data, Context) or not isinstance(data, (Mapping, BaseModel)):
            return handler(data)
        explicit = settings_tree(data)
        name = explicit.pop("preset", DEFAULT_PRESET)
        preset = load_preset(name) if isinstance(name, str) and name in available_presets() else {}
        context = handler({**merge_trees(preset, explicit), "preset": name})
        context._explicit = explicit
        return context

    def explicit(self) -> dict[str, Any]:
        """What the caller set, as a settings tree with the preset's name: re-validating it gives this Context back."""
        return {"preset": self.preset, **copy.deepcopy(self._explicit)}

    def with_overrides(self, *layers: Mapping[str, Any]) -> Context:
        """This Context's explicit settings with later layers on top (a new `preset` re-applies that preset)."""
        return Context.model_validate(merge_trees(self.explicit(), *(settings_tree(layer) for layer in layers)))

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The JSON schema with the groups inlined (no $ref), so a form renderer such as LangGraph Studio's shows
        each group as a titled, described section of fields.

        A field's default is written into its description ("Default: 4; fast: 3; research_max: 5"), not as the
        schema's `default`: a form fills every `default` into what it sends, and sent values are explicit, so they
        would override the chosen preset. Left out, a field the user does not touch is not sent and the preset
        decides it."""
        schema = _inline_refs(super().model_json_schema(*args, **kwargs))
        schema["properties"]["preset"]["enum"] = list(available_presets())
        for group, model in GROUPS.items():
            defaults = model().model_dump(mode="json")
            for field, prop in schema["properties"][group]["properties"].items():
                prop.pop("default", None)
                prop["description"] = (
                    f"{prop.get('description', '').rstrip()} {default_note(group, field, defaults[field])}".strip()
                )
        return schema


def default_note(group: str, field: str, default: Any) -> str:
    """'Default: 4; fast: 3; research_max: 5.': the documented default and every preset that changes it."""
    by_preset = [
        f"{name}: {json.dumps(tree[group][field])}"
        for name, tree in PRESETS.items()
        if field in tree.get(group, {}) and tree[group][field] != default
    ]
    return "; ".join([f"Default: {json.dumps(default)}", *by_preset]) + "."


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                target = resolve(defs[node["$ref"].rsplit("/", 1)[-1]])
                return {**target, **{k: resolve(v) for k, v in node.items() if k != "$ref"}}
            return {k: resolve(v) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    return resolve(schema)


PRESETS: dict[str, dict[str, Any]] = {name: load_preset(name) for name in PACKAGED_PRESETS}
"""Each packaged preset's settings tree, read from agent/presets/*.json."""
