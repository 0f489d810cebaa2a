"""Read the records of an offline W&B run file (`run-*.wandb`: W&B's LevelDB-style log of protobuf records)."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

BLOCK = 32768
FILE_HEADER = struct.Struct("<4sHB")  # ":W&B", magic, version
RECORD_HEADER = struct.Struct("<IHB")  # crc32, length, type (1 full, 2 first, 3 middle, 4 last)


def payloads(path: Path) -> list[bytes]:
    data = path.read_bytes()
    if len(data) < FILE_HEADER.size:
        return []  # not written yet
    ident, _, _ = FILE_HEADER.unpack_from(data)
    assert ident == b":W&B", f"{path}: not a W&B run file"
    found, pending, offset = [], b"", FILE_HEADER.size
    while offset + RECORD_HEADER.size <= len(data):
        left_in_block = BLOCK - offset % BLOCK
        if left_in_block < RECORD_HEADER.size:
            offset += left_in_block
            continue
        _, length, kind = RECORD_HEADER.unpack_from(data, offset)
        if offset + RECORD_HEADER.size + length > len(data):
            break  # a record still being written
        chunk = data[offset + RECORD_HEADER.size: offset + RECORD_HEADER.size + length]
        offset += RECORD_HEADER.size + length
        if kind == 0 and length == 0:
            break
        pending = chunk if kind in (1, 2) else pending + chunk
        if kind in (1, 4):
            found.append(pending)
    return found


def records(path: Path) -> list[tuple[str, Any]]:
    """(record type, record) for every record of the run file."""
    from wandb.proto import wandb_internal_pb2

    out = []
    for payload in payloads(path):
        record = wandb_internal_pb2.Record()
        record.ParseFromString(payload)
        kind = record.WhichOneof("record_type")
        out.append((kind, getattr(record, kind) if kind else None))
    return out
