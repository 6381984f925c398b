"""``kind.json``: which kind of run a work directory holds ("run" or "sweep") and of
which config file (``claim``), so that one directory never holds two whose plots
and reports would overwrite each other's."""

from __future__ import annotations

import json
from pathlib import Path

from attention_research.running.workdir import WorkDirError, read_json, write_atomically

KIND_FILE = "kind.json"


def _found_kind(path: Path) -> dict | None:
    """What a directory written before kind.json existed holds, from its files."""
    if (path / "members").is_dir() or (path / "cohorts").is_dir():
        return {"kind": "sweep"}
    if any((path / name).exists() for name in ("config.json", "metrics.jsonl", "checkpoints")):
        return {"kind": "run"}
    return None


def _described(found: dict) -> str:
    kind = "a sweep" if found["kind"] == "sweep" else "a single run"
    return kind + (f" of {found['of']}" if found.get("of") else "")


def claim(path, kind: str, of: str):
    """Refuse a work directory that holds another kind of run ("run" or "sweep") or a
    run of another config file (``of``: its name and argument), before anything is
    written; record ``kind.json`` in a new (or older) one. Nothing is changed when
    refused."""
    path, wanted = Path(path), {"kind": kind, "of": of}
    file = path / KIND_FILE
    found = read_json(file) if file.exists() else _found_kind(path)
    if found and (found["kind"] != kind or found.get("of", of) != of):
        raise WorkDirError(
            f"{path} holds {_described(found)}; this is {_described(wanted)}. One kind of "
            "run per work directory (each would overwrite the other's plots and reports): "
            "pass another --workdir.")
    if not file.exists():
        path.mkdir(parents=True, exist_ok=True)
        write_atomically(file, json.dumps(wanted) + "\n")
