"""Reading a literature corpus: JSONL lines as Records, one malformed line named in a one-line CorpusError.

Corpus formats, detected per line:
- SciFact: {"doc_id", "title", "abstract": [sentences]}
- BEIR:    {"_id", "title", "text"}
- generic: {"id", "title", "abstract" (str or list), "year"?, "doi"?, "references"?: [ids], "authors"?}
"""

from __future__ import annotations

import math
from pathlib import Path

from agent.common.jsonl import parse_jsonl
from agent.errors import CorpusError
from agent.literature import Record


def _record_from_json(obj: dict, line_no: int) -> Record:
    """One corpus line (or caller document) as a Record; a field of the wrong type raises CorpusError naming it."""
    if not isinstance(obj, dict):
        raise CorpusError(f"corpus line {line_no} is not a JSON object")
    try:
        return _parse_record(obj, line_no)
    except (ValueError, TypeError) as exc:
        first = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        raise CorpusError(f"corpus line {line_no}: {first}") from None


record_from_json = (
    _record_from_json  # the public name, for readers that stream a corpus (agent.tools.index.corpus_stream)
)


def _list_field(obj: dict, name: str) -> list[str]:
    value = obj.get(name) or []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise TypeError(f"'{name}' must be a list, not {type(value).__name__}")
    return [str(v) for v in value]


def _year(value: object) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise ValueError(f"'year' must be a number, not {value}")
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _optional_text(obj: dict, name: str) -> str | None:
    value = obj.get(name)
    if value is None or value == "":
        return None
    if isinstance(value, (dict, list, bool)):
        raise TypeError(f"'{name}' must be text, not {type(value).__name__}")
    return str(value)


def _parse_record(obj: dict, line_no: int) -> Record:
    if "doc_id" in obj:
        rid, abstract = obj["doc_id"], obj.get("abstract") or []
    elif "_id" in obj:
        rid, abstract = obj["_id"], obj.get("text") or ""
    elif "id" in obj:
        rid, abstract = obj["id"], obj.get("abstract") or obj.get("text") or ""
    else:
        raise CorpusError(f"corpus line {line_no}: no 'doc_id', '_id' or 'id' field")
    if isinstance(rid, (dict, list, bool)) or rid is None or str(rid).strip() == "":
        raise TypeError("the id must be a string or a number")
    if isinstance(abstract, dict):
        raise TypeError("the abstract must be text or a list of sentences")
    sentences = [str(s).strip() for s in abstract if str(s).strip()] if isinstance(abstract, list) else []
    text = " ".join(sentences) if isinstance(abstract, list) else str(abstract)  # [] is no abstract, not "[]"
    count = obj.get("citation_count")
    return Record(
        id=str(rid),
        source="local",
        source_type="local",
        title=str(obj.get("title") or ""),
        abstract=text,
        sentences=sentences,
        year=_year(obj.get("year")),
        doi=_optional_text(obj, "doi"),
        authors=_list_field(obj, "authors"),
        references=_list_field(obj, "references"),
        citation_count=int(count)
        if isinstance(count, (int, float)) and not isinstance(count, bool) and math.isfinite(count)
        else None,
        venue=_optional_text(obj, "venue"),
    )


def records_from_dicts(items: list[dict]) -> list[Record]:
    """Records from caller-given documents (same field conventions as a corpus line)."""
    return [_record_from_json(item, i) for i, item in enumerate(items, 1)]


def load_corpus(path: Path) -> list[Record]:
    """Read a JSONL corpus; a malformed line raises CorpusError naming the line."""
    if not path.exists():
        raise CorpusError(f"corpus not found: {path}")
    if path.is_dir():
        raise CorpusError(
            f"corpus {path} is a folder; give a JSONL file (or `sparkit library add` for a folder of papers)"
        )
    records: list[Record] = []
    seen: set[str] = set()
    try:
        with path.open(encoding="utf-8") as handle:
            for line_no, obj in parse_jsonl(
                handle, lambda number, msg: CorpusError(f"corpus line {number} is not valid JSON: {msg}")
            ):
                record = _record_from_json(obj, line_no)
                if record.id in seen:
                    continue
                seen.add(record.id)
                records.append(record)
    except UnicodeDecodeError as exc:
        raise CorpusError(f"corpus {path} is not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise CorpusError(f"corpus {path} cannot be read: {exc.strerror or exc}") from None
    if not records:
        raise CorpusError(f"corpus is empty: {path}")
    return records
