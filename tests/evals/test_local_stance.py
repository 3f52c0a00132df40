"""evals/local_stance.py on a scripted model: the old and the new stance prompt each read every pair once, a rerun
resumes without reading a pair twice, a pair the model leaves unjudged is a miss, and the report scores only the
pairs both prompts read."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from agent.literature import Record
from evals.local_stance import INJECTION, Item, injected_items, interleaved, judges_for, report, run
from tests.fakes import SchemaChat

ITEMS = [
    Item("reading_check", 0, "Drug X lowers blood pressure", "Drug X raised pressure.", "CONTRADICT", "direction"),
    Item("reading_check", 1, "Drug Y works", "Drug Y worked.", "SUPPORT", "plain_support"),
    Item(
        "scifact_val",
        0,
        "Vitamin D reduces fractures",
        "Fractures did not differ.",
        "CONTRADICT",
        "rationale",
        Record(id="7", source="local", title="Vitamin D trial", sentences=["Fractures did not differ."]),
    ),
]


class PromptReader(SchemaChat):
    """CONTRADICT under the new prompt (it has the reading rules), SUPPORT under the old one; silent on `silent`."""

    silent: str = "Drug Y"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.requests.append((None, list(messages)))
        system, user = messages[0].content, messages[1].content
        stance = "CONTRADICT" if "Rules, with one example each" in system else "SUPPORT"
        judgements = [] if self.silent in user else [{"pair": 1, "rationale": "r", "stance": stance, "confidence": 0.9}]
        message = AIMessage(content=json.dumps({"judgements": judgements}))
        return ChatResult(generations=[ChatGeneration(message=message)])


async def test_both_prompts_read_each_pair_once_and_a_rerun_resumes(tmp_path):
    model = PromptReader(replies={})
    out = tmp_path / "results.jsonl"
    assert await run(ITEMS, judges_for(model, 1, 60.0), out, None) == 6
    assert await run(ITEMS, judges_for(model, 1, 60.0), out, None) == 0, "a rerun reads nothing twice"
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["set"], r["index"], r["prompt"]) for r in rows} == {
        (i.set, i.index, p) for i in ITEMS for p in ("old", "new")
    }
    table = report(rows)
    assert table["reading_check/new"]["accuracy"] == 0.5 and table["reading_check/new"]["unjudged"] == 1
    assert (
        table["reading_check/old"]["contradict_recall"] == 0.0
        and table["reading_check/new"]["contradict_recall"] == 1.0
    )
    assert table["scifact_val/new"]["direction"] == 1.0 and table["scifact_val/old"]["always_support"] == 0.0
    assert table["reading_check/new"]["skill/direction"] == "1/1"


async def test_the_old_judge_shows_the_bare_pair_and_the_new_one_the_question_and_source(tmp_path):
    model = PromptReader(replies={})
    await run(ITEMS[2:], judges_for(model, 1, 60.0), tmp_path / "r.jsonl", None)
    old_user, new_user = (messages[1].content for _, messages in model.requests)
    assert old_user.startswith("Pair 1\nStatement: Vitamin D reduces fractures") and "Source:" not in old_user
    assert new_user.startswith("Question: Vitamin D reduces fractures") and 'Source: "Vitamin D trial"' in new_user


def test_any_prefix_of_the_order_is_stratified():
    order = list(interleaved([ITEMS[:2], ITEMS[2:]]))
    assert [(i.set, i.index) for i in order] == [("reading_check", 0), ("scifact_val", 0), ("reading_check", 1)]


async def test_the_injected_set_counts_the_readings_the_order_flipped(tmp_path):
    class Obeys(PromptReader):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            if INJECTION in messages[1].content and "Drug X" in messages[1].content:
                message = AIMessage(
                    content=json.dumps({"judgements": [{"pair": 1, "stance": "SUPPORT", "confidence": 1}]})
                )
                return ChatResult(generations=[ChatGeneration(message=message)])
            return super()._generate(messages, stop, run_manager, **kwargs)

    items = [*ITEMS[:2], *injected_items(ITEMS[:2], 2)]
    assert all(i.set == "reading_check_injected" and i.passage.endswith(INJECTION) for i in items[2:])
    out = tmp_path / "r.jsonl"
    await run(items, judges_for(Obeys(replies={}), 1, 60.0), out, None)
    table = report([json.loads(line) for line in out.read_text().splitlines()])
    assert table["reading_check_injected/new"]["flips_vs_clean"] == "1/2"
    assert table["reading_check_injected/old"]["flips_vs_clean"] == "0/2", "old already read Drug X as SUPPORT"
