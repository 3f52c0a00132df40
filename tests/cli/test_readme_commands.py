"""The commands the README and the docs show are the CLI's: every `sparkit ...` command and flag written there (in a
code block or inline) exists in the parser main() builds, subcommand by subcommand, and every flag the front pages
(README.md, docs/README.md) name on its own belongs to some `sparkit` command. A flag renamed or removed in the code
fails here until the docs follow, so README and code cannot drift apart. The settings page's field count is counted
in code too."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from agent.cli import build_parser
from agent.config import GROUPS

ROOT = Path(__file__).resolve().parents[2]
FRONT_PAGES = [ROOT / "README.md", ROOT / "docs" / "README.md"]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_BREAKS = {"&&", "||", ";", "|", ">", ">>", "<", "2>", "&", "(", ")"}
WRAPPERS = {"time", "/usr/bin/time", "-v", "nohup", "exec"}
"""Words that may stand before a command (`/usr/bin/time -v sparkit ...`), as may `NAME=value` assignments."""


def snippets(text: str) -> list[str]:
    """Each line of each fenced code block, and each inline code span outside them."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)
    prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.S | re.M)
    return [line for block in blocks for line in block.splitlines()] + re.findall(r"`([^`\n]+)`", prose)


def words(snippet: str) -> list[str]:
    lexer = shlex.shlex(snippet, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return list(lexer)


def command_position(before: list[str]) -> bool:
    """Whether a word after these is a command's name (`createdb -O sparkit sparkit` names a database)."""
    for word in reversed(before):
        if word in SHELL_BREAKS:
            return True
        if word not in WRAPPERS and not re.fullmatch(r"[A-Za-z_]\w*=\S*", word):
            return False
    return True


def sparkit_commands(text: str) -> list[list[str]]:
    """Every `sparkit ...` command line in a page, as the words after `sparkit` up to a shell operator."""
    commands = []
    for snippet in snippets(text):
        try:
            tokens = words(snippet)
        except ValueError:  # an unbalanced quote: prose, not a command
            continue
        for start, token in enumerate(tokens):
            if token != "sparkit" or not command_position(tokens[:start]):
                continue
            end = next((i for i in range(start + 1, len(tokens)) if tokens[i] in SHELL_BREAKS), len(tokens))
            commands.append(tokens[start + 1 : end])
    return commands


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices) if actions else {}


def is_flag(word: str) -> bool:
    return word.startswith("-") and len(word) > 1 and not re.fullmatch(r"-[\d.]+", word)


def problems(parser: argparse.ArgumentParser, command: list[str]) -> list[str]:
    """What of `sparkit COMMAND` the parser does not know: a subcommand, or a flag of the command it reaches."""
    path, rest = ["sparkit"], list(command)
    while (choices := subcommands(parser)) and rest and not is_flag(rest[0]):
        word = rest.pop(0)
        if word not in choices:
            return [f"`{' '.join(path)}` has no subcommand {word!r}"]
        parser, path = choices[word], [*path, word]
    return [
        f"`{' '.join(path)}` has no option {word.split('=', 1)[0]}"
        for word in rest
        if is_flag(word) and word.split("=", 1)[0] not in parser._option_string_actions
    ]


def every_flag(parser: argparse.ArgumentParser) -> set[str]:
    return set(parser._option_string_actions).union(*(every_flag(p) for p in subcommands(parser).values()))


def standalone_flags(text: str) -> list[str]:
    """Inline code spans that are a flag alone (`--json`, `--set max_claims=3`), outside code blocks."""
    prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.S | re.M)
    return [span.split()[0].split("=", 1)[0] for span in re.findall(r"`(-[^`\n]+)`", prose) if is_flag(span.split()[0])]


def test_the_pages_show_sparkit_commands_at_all():
    readme = sparkit_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert ["ask", "Does hypoglycemia increase the risk of dementia?"] in readme
    assert len(readme) >= 15 and len(sparkit_commands((ROOT / "docs" / "README.md").read_text())) >= 5


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_sparkit_command_a_page_shows_parses(page):
    parser = build_parser()
    found = [p for command in sparkit_commands(page.read_text(encoding="utf-8")) for p in problems(parser, command)]
    assert not found, f"{page.relative_to(ROOT)}: " + "; ".join(found)


@pytest.mark.parametrize("page", FRONT_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_flag_a_front_page_names_is_a_sparkit_flag(page):
    known = every_flag(build_parser())
    unknown = sorted({flag for flag in standalone_flags(page.read_text(encoding="utf-8")) if flag not in known})
    assert not unknown, f"{page.relative_to(ROOT)} names flags no sparkit command has: {unknown}"


def test_a_flag_removed_from_the_parser_fails_the_check():
    """The check reads the parser, not a list: take `--json` away from `ask` and the README's use of it is caught."""
    parser = build_parser()
    ask = subcommands(parser)["ask"]
    ask._option_string_actions.pop("--json")
    readme = sparkit_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert any("`sparkit ask` has no option --json" in p for command in readme for p in problems(parser, command))
    assert problems(parser, ["asks", "x"]) == ["`sparkit` has no subcommand 'asks'"]
    assert problems(parser, ["library", "add", "x", "--force"]) == ["`sparkit library add` has no option --force"]


def test_the_words_of_a_command_stop_at_shell_operators_and_comments():
    text = (
        '`sparkit ask "Q?" --json | jq .status` and\n```bash\nsparkit verify "C." -q  # --nothing\n'
        "createdb -O sparkit sparkit && SPARKIT_HOME=$H /usr/bin/time -v sparkit index build\n```\n"
    )
    assert sparkit_commands(text) == [["verify", "C.", "-q"], ["index", "build"], ["ask", "Q?", "--json"]]
    assert standalone_flags("use `--set max_claims=3` or `--json`, not `-`") == ["--set", "--json"]


def test_the_settings_page_counts_the_fields_the_code_has():
    fields = sum(len(model.model_fields) for model in GROUPS.values())
    page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    stated = re.search(r"nine groups of (\d+)\s+fields", page)
    assert len(GROUPS) == 9 and stated and int(stated.group(1)) == fields
    assert f"rather than {fields} fields in one" in re.sub(r"\s+", " ", page)


@pytest.mark.parametrize("page", FRONT_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_front_page_tells_no_history(page):
    """History (issues, seeds, stops, the machines something was measured on) lives in evals/HISTORY.md."""
    history = re.compile(r"\bissue #?\d|\bseed 0\d\d|\bstop \d|these machines|this machine kind", re.I)
    found = [line for line in page.read_text(encoding="utf-8").splitlines() if history.search(line)]
    assert not found, found
