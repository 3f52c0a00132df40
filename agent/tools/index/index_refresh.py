"""Bringing an embedded index up to date with its corpus: nothing when it is current, an update when it is not.

An index is current when its manifest's corpus digest, encoder (model, vector size) and BM25 tokeniser are this
corpus's and this code's; `sparkit index build` on a current index then does nothing and says so in one line, instead
of encoding every record again (issue 46). A corpus that changed (records added, removed or edited) is updated from
its previous index: records whose id and text are unchanged keep their vectors, only the others are encoded
(`LocalIndex.updated`). The default folder is named by the corpus digest, so an edited corpus gets a new folder; its
previous index is found beside it by the corpus path its manifest records, and removed once the new one is in place.
An index built with another encoder, or an older index format, is rebuilt; `force` rebuilds whatever is there.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent.tools.index.corpus_records import load_corpus
from agent.tools.index.local_index import INDEX_VERSION, TOKENISER, LocalIndex, bm25_tokenize, file_digest
from agent.tools.models.encoder import DIM, MODEL_NAME

Action = Literal["current", "built", "updated", "rebuilt"]


@dataclass(frozen=True)
class Refresh:
    """What `refresh_index` did, and the one line that says so."""

    action: Action
    target: Path
    documents: int
    seconds: float
    added: int = 0
    edited: int = 0
    removed: int = 0
    reused: int = 0
    why: str = ""  # why a rebuild (not an update) was needed
    replaced: Path | None = None  # the previous index's folder, removed
    index: LocalIndex | None = None  # None when current (nothing was loaded)

    def line(self) -> str:
        if self.action == "current":
            return (
                f"index up to date: {self.target} ({self.documents:,} documents; corpus digest, encoder and tokeniser "
                f"match): nothing to do ({self.seconds:.1f} s; --force rebuilds)"
            )
        if self.action == "updated":
            source = f" from {self.replaced}" if self.replaced else ""
            return (
                f"updated the index{source}: {self.added:,} new, {self.edited:,} edited, {self.removed:,} removed "
                f"record(s); {self.reused:,} unchanged kept their vectors; {self.documents:,} documents in "
                f"{self.seconds:.1f} s: {self.target}"
            )
        why = f" ({self.why})" if self.why else ""
        return f"{self.action} the index{why}: {self.documents:,} documents in {self.seconds:.1f} s: {self.target}"


def read_manifest(index_dir: Path) -> dict[str, Any] | None:
    """An index folder's manifest, or None when there is none (or it is unreadable: then it is rebuilt)."""
    try:
        data = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def unusable(manifest: dict[str, Any]) -> str | None:
    """Why an index's vectors cannot be reused by this code (another format or encoder), or None."""
    if manifest.get("version") != INDEX_VERSION:
        return f"index format {manifest.get('version')}, this SPARKIT writes {INDEX_VERSION}"
    if manifest.get("model") != MODEL_NAME or manifest.get("dim") != DIM:
        return f"encoded with {manifest.get('model')} ({manifest.get('dim')}), this SPARKIT uses {MODEL_NAME} ({DIM})"
    return None


def is_current(manifest: dict[str, Any] | None, digest: str) -> bool:
    """Whether an index answers for a corpus of this digest exactly as a fresh build would."""
    return (
        manifest is not None
        and unusable(manifest) is None
        and manifest.get("tokeniser") == TOKENISER
        and manifest.get("corpus_sha256") == digest
    )


def previous_index(corpus: Path, target: Path) -> Path | None:
    """The index to update from: `target` itself when it holds one, else the newest folder beside it built from the
    same corpus path (the default folders are named `<stem>-<digest>`: an edited corpus's previous index)."""
    if read_manifest(target) is not None:
        return target
    if not target.parent.is_dir():
        return None
    path = str(corpus.resolve())
    siblings = [
        folder
        for folder in target.parent.glob(f"{corpus.stem}-*")
        if folder.is_dir() and folder != target and (read_manifest(folder) or {}).get("corpus") == path
    ]
    return max(siblings, key=lambda folder: folder.stat().st_mtime, default=None)


def refresh_index(corpus: Path, target: Path, *, force: bool = False, progress: bool | None = None) -> Refresh:
    """Make `target` the current index of `corpus` with the least work: none, an update, or a (re)build."""
    started = time.monotonic()
    digest = file_digest(corpus)
    manifest = read_manifest(target)
    if not force and is_current(manifest, digest):
        assert manifest is not None
        return Refresh("current", target, int(manifest.get("documents", 0)), time.monotonic() - started)
    previous = None if force else previous_index(corpus, target)
    old_manifest = read_manifest(previous) if previous is not None else None
    why = "--force" if force and manifest is not None else unusable(old_manifest) if old_manifest else None
    if previous is None or old_manifest is None or why:
        index = LocalIndex.build(corpus, target, progress=progress)
        if previous is not None and previous != target:
            shutil.rmtree(previous, ignore_errors=True)
        action: Action = "rebuilt" if why or manifest is not None else "built"
        return Refresh(action, target, len(index.records), time.monotonic() - started, why=why or "", index=index)
    return _update(corpus, target, previous, old_manifest, digest, started, progress)


def _update(
    corpus: Path,
    target: Path,
    previous: Path,
    old_manifest: dict[str, Any],
    digest: str,
    started: float,
    progress: bool | None,
) -> Refresh:
    """Update `previous` into `target`: only new and edited records are encoded."""
    old = LocalIndex.load(previous)
    if old_manifest.get("tokeniser") != TOKENISER:  # another (or an unrecorded) tokeniser: every record's BM25 again
        old._tokens = [list(t) for t in bm25_tokenize([r.text for r in old.records], return_ids=False)]
    records = load_corpus(corpus)
    ids = {r.id for r in records}
    added = sum(1 for r in records if r.id not in old.by_id)
    edited = sum(1 for r in records if r.id in old.by_id and old.by_id[r.id] != r)
    removed = sum(1 for r in old.records if r.id not in ids)
    reused = sum(1 for r in records if r.id in old.by_id and old.by_id[r.id].text == r.text)
    manifest = {"corpus": str(corpus.resolve()), "corpus_sha256": digest, "tokeniser": TOKENISER}
    index = old.updated(records, manifest, progress=progress is not False, bulk=True)
    index.save(target)
    replaced = previous if previous != target else None
    if replaced is not None:
        shutil.rmtree(replaced, ignore_errors=True)
    return Refresh(
        "updated",
        target,
        len(records),
        time.monotonic() - started,
        added=added,
        edited=edited,
        removed=removed,
        reused=reused,
        replaced=replaced,
        index=index,
    )


def open_index(corpus: Path, index_dir: Path, *, progress: bool | None = None) -> LocalIndex:
    """Load the index for `corpus`, building it first when absent (updating the corpus's previous index beside it
    when there is one)."""
    if (index_dir / "manifest.json").exists():
        return LocalIndex.load(index_dir)
    built = refresh_index(corpus, index_dir, progress=progress).index
    return built if built is not None else LocalIndex.load(index_dir)
