"""The default corpus, chosen once and found from any directory.

The offline backend needs a corpus. In order: the run's `corpus_path`, SPARKIT_CORPUS, the corpus chosen once with
`sparkit config corpus PATH` ($SPARKIT_HOME/config.json), the shared SciFact corpus beside the project checkout
(`../shared/data/scifact/corpus.jsonl` next to the repository, or next to the current directory), and at last the
SciFact corpus downloaded once into $SPARKIT_HOME/corpora/scifact/.

The download goes through the project's HTTP base (one allowlisted host, a timeout and retries honouring Retry-After),
reads only `data/corpus.jsonl` out of the official release archive, and checks its sha256 before anything is written:
a corpus that does not match (a changed release, a proxy's error page, a truncated transfer) is refused.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import tarfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.errors import CorpusError, InputError

if TYPE_CHECKING:
    from agent.settings.sources import CorpusSettings

SCIFACT_HOST = "scifact.s3-us-west-2.amazonaws.com"
SCIFACT_URL = f"https://{SCIFACT_HOST}/release/latest/data.tar.gz"
SCIFACT_MEMBER = "data/corpus.jsonl"
SCIFACT_SHA256 = "b8d6c89624cb2ed74dee8938effc4f5d8bd2086887880af8110d64be4ceade62"
SCIFACT_BYTES = 8_307_875
"""The official SciFact release's corpus.jsonl (Wadden et al. 2020; abstracts ODC-By 1.0): 5,183 abstracts."""

CONFIG_KEYS = {"corpus": "default JSONL corpus of the offline backend, used from any directory"}
PROJECT_ROOT = Path(__file__).resolve().parents[1]


def config_path(home: Path) -> Path:
    return home / "config.json"


def load_config(home: Path) -> dict[str, Any]:
    """$SPARKIT_HOME/config.json, or {} when there is none; a broken file is an InputError naming it."""
    path = config_path(home)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path} is not a JSON object ({exc}); fix it or remove it") from None
    if not isinstance(data, dict):
        raise InputError(f"{path} is not a JSON object; fix it or remove it")
    return data


def set_config(home: Path, key: str, value: str | None) -> dict[str, Any]:
    """Set (or with None remove) one key; a corpus is stored as an absolute path and must exist."""
    if key not in CONFIG_KEYS:
        raise InputError(f"unknown config key {key!r}; known: {', '.join(CONFIG_KEYS)}")
    data = load_config(home)
    if value is None:
        data.pop(key, None)
    else:
        path = Path(value).expanduser().resolve()
        if not path.is_file():
            raise CorpusError(f"corpus not found: {path}")
        data[key] = str(path)
    home.mkdir(parents=True, exist_ok=True)
    tmp = config_path(home).with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, config_path(home))
    return data


def shared_scifact() -> Path | None:
    """The shared SciFact corpus beside the project checkout (or beside the current directory), when present."""
    for base in (PROJECT_ROOT.parent, Path.cwd().parent, Path.cwd()):
        candidate = base / "shared" / "data" / "scifact" / "corpus.jsonl"
        if candidate.is_file():
            return candidate.resolve()
    return None


def configured_corpus(home: Path) -> Path | None:
    """SPARKIT_CORPUS, else the config file's corpus, else the shared SciFact corpus; None when none is set up."""
    env = os.environ.get("SPARKIT_CORPUS")
    if env:
        return Path(env).expanduser()
    chosen = load_config(home).get("corpus")
    if chosen:
        return Path(str(chosen)).expanduser()
    return shared_scifact()


def corpus_label(corpus: Path, digest: str | None, records: int) -> str:
    """A corpus as an answer's `searched` names it: 'SciFact (5,183 abstracts)', else its file name and size."""
    if digest == SCIFACT_SHA256:
        return f"SciFact ({records:,} abstracts)"
    return f"{corpus.name} ({records:,} record{'s' if records != 1 else ''})"


def downloaded_corpus_path(home: Path) -> Path:
    return home / "corpora" / "scifact" / "corpus.jsonl"


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def extract_member(archive: bytes, member: str = SCIFACT_MEMBER) -> bytes:
    """The bytes of one regular file inside a .tar.gz, read in memory (nothing is extracted to disk)."""
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            info = tar.getmember(member)
            handle = tar.extractfile(info) if info.isfile() else None
            if handle is None:
                raise CorpusError(f"the SciFact archive's {member} is not a regular file")
            return handle.read()
    except KeyError:
        raise CorpusError(f"the downloaded SciFact archive has no {member}") from None
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise CorpusError(f"the downloaded SciFact archive is not a readable .tar.gz ({exc})") from None


async def download_scifact(home: Path, *, options: Any = None, say: Any = None) -> Path:
    """Download the SciFact corpus once into $SPARKIT_HOME, checked against its sha256 before it is written."""
    from agent.errors import SourceError
    from agent.tools.http import HostPolicy, HttpBase

    target = downloaded_corpus_path(home)
    if target.is_file():
        return target
    if say is not None:
        say(
            f"downloading the SciFact corpus (about 3 MB compressed) from {SCIFACT_HOST} into {target.parent} "
            "(once) ..."
        )
    client = HttpBase(
        "scifact",
        f"https://{SCIFACT_HOST}/",
        policy=HostPolicy(timeout_s=120.0, max_attempts=4, max_concurrency=1),
        options=options,
    )
    try:
        response = await client.request("GET", SCIFACT_URL, parse="text", use_cache=False)
    except SourceError as exc:
        raise CorpusError(
            f"no corpus configured and the SciFact download failed ({exc}); pass --corpus PATH or "
            "run `sparkit config corpus PATH`"
        ) from None
    finally:
        await client.aclose()
    corpus = extract_member(response.content)
    digest = sha256_of(corpus)
    if digest != SCIFACT_SHA256:
        raise CorpusError(
            f"the downloaded SciFact corpus failed its checksum (sha256 {digest[:16]}..., expected "
            f"{SCIFACT_SHA256[:16]}...); refused, nothing was written"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".part")
    tmp.write_bytes(corpus)
    os.replace(tmp, target)
    return target


def corpus_of(settings: CorpusSettings, *, download: bool = False) -> Path | None:
    """The corpus a run with these settings indexes: its corpus_path, else the default (SPARKIT_CORPUS, else the
    one chosen with `sparkit config corpus PATH`, else the shared SciFact corpus beside the project); with
    `download`, else SciFact downloaded once."""
    if settings.corpus_path:
        return Path(settings.corpus_path).expanduser()
    from agent.config import sparkit_home

    return default_corpus(sparkit_home(), download=download)


def default_corpus(home: Path, *, download: bool = True) -> Path | None:
    """The corpus a run uses when none is given (module docstring), downloading SciFact when nothing is set up."""
    found = configured_corpus(home)
    if found is not None or not download:
        return found
    if downloaded_corpus_path(home).is_file():
        return downloaded_corpus_path(home)
    from agent.common.aio import run_coroutine_sync

    return run_coroutine_sync(download_scifact(home, say=lambda text: print(text, file=sys.stderr, flush=True)))
