"""Derived data kept in a store (the preflop table and the like), each bound to the tables it came from.

A derived file lives under ``derived/`` and is JSON::

    {"kind": "preflop", "version": 2,
     "tables_sha256": "...",    # fingerprint of the tables it was computed from
     "content_sha256": "...",   # SHA-256 of the content's canonical JSON
     "content": {...}}

A file whose content does not match its digest was altered or damaged and is
refused; a file computed from other tables (or in an older version) is stale
and simply recomputed. ``matchdb verify`` checks both.

>>> payload = encode_derived("demo", 1, "f" * 64, {"x": [1.5, 2]})
>>> decode_derived(payload, "derived/demo.json", "demo", 1, "f" * 64, "db")
{'x': [1.5, 2]}
>>> decode_derived(payload, "derived/demo.json", "demo", 1, "0" * 64, "db") is None  # other tables: stale
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from matchdb.errors import CorruptDatabaseError, IncompleteDatabaseError
from matchdb.storage.digests import sha256_bytes, tables_digest
from matchdb.storage.layout import about_table

if TYPE_CHECKING:
    from matchdb.storage import Database

__all__ = ["DERIVED_FOLDER", "derived_member", "tables_fingerprint", "encode_derived", "decode_derived", "load_derived", "save_derived"]

DERIVED_FOLDER = "derived"


def derived_member(kind: str) -> str:
    """The member name of a kind of derived data, like ``derived/preflop.json``."""
    return f"{DERIVED_FOLDER}/{kind}.json"


def tables_fingerprint(database: Database, indices: Iterable[int]) -> str:
    """Fingerprint of the tables ``indices`` of ``database``: their indices and their manifests' table SHA-256."""
    parts = []
    for index in indices:
        with about_table(index):
            entry = database.manifest(index)
            if entry is None:
                raise IncompleteDatabaseError(f"The database '{database.name}' lacks table {index}; {database.build_hint(index)}.")
        parts.append(f"{index}:{entry['table_sha256']}")
    return tables_digest(parts)


def _content_digest(content: dict[str, Any]) -> str:
    return sha256_bytes(json.dumps(content, sort_keys=True, separators=(",", ":")).encode())


def encode_derived(kind: str, version: int, fingerprint: str, content: dict[str, Any]) -> bytes:
    """The bytes of a derived file holding ``content``."""
    return json.dumps(
        {
            "kind": kind,
            "version": version,
            "tables_sha256": fingerprint,
            "content_sha256": _content_digest(content),
            "content": content,
        }
    ).encode()


def decode_derived(data: bytes, member: str, kind: str, version: int, fingerprint: str, where: str) -> dict[str, Any] | None:
    """The content of a derived file, None when it is stale (other tables, other version); raises when damaged."""
    damaged = (
        f"The derived file '{member}' of '{where}' was altered or damaged (its content does not match its SHA-256); "
        "delete it to have it recomputed, or pack the database again."
    )
    try:
        payload = json.loads(data)
    except ValueError:
        raise CorruptDatabaseError(damaged) from None
    if not isinstance(payload, dict) or not isinstance(payload.get("content"), dict):
        raise CorruptDatabaseError(damaged)
    if payload.get("kind") != kind or payload.get("version") != version:
        return None
    if payload.get("content_sha256") != _content_digest(payload["content"]):
        raise CorruptDatabaseError(damaged)
    if payload.get("tables_sha256") != fingerprint:
        return None
    content: dict[str, Any] = payload["content"]
    return content


def load_derived(database: Database, kind: str, version: int, fingerprint: str) -> dict[str, Any] | None:
    """The stored content of ``kind`` if present, intact and computed from the tables ``fingerprint`` names."""
    member = derived_member(kind)
    data = database.read_member(member)
    if data is None:
        return None
    return decode_derived(data, member, kind, version, fingerprint, database.name)


def save_derived(database: Database, kind: str, version: int, fingerprint: str, content: dict[str, Any]) -> bool:
    """Store ``content`` as derived data of ``database``; False when the database cannot be written (a packed file)."""
    return database.write_member(derived_member(kind), encode_derived(kind, version, fingerprint, content))
