"""The results documents that benchmark runs write (`reinfors-gym bench`, its `--loops` mode):
the header every one carries, the checks their readers share, and their JSON files."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .provenance import load_average, machine_info

Need = Callable[[bool, str], None]
"""``need(condition, what)``: raises ValueError naming `what` unless `condition` holds."""


@dataclass(frozen=True)
class RunStart:
    """When a run started, and the machine's load average then."""

    time: datetime
    load_average: str

    @classmethod
    def now(cls) -> RunStart:
        return cls(datetime.now(timezone.utc), load_average())

    def header(self, schema: str, command: str, config: dict[str, Any]) -> dict[str, Any]:
        """A document's header, written when the run ends: what ran, where, and for how long."""
        return {
            "schema": schema,
            "created": self.time.isoformat(timespec="seconds"),
            "duration_s": round((datetime.now(timezone.utc) - self.time).total_seconds(), 1),
            "command": command,
            "machine": machine_info(),
            "load_average": {"before": self.load_average, "after": load_average()},
            "config": config,
        }


def requirement(what_document: str) -> Need:
    """The `need` of a validator of `what_document` ("benchmark result", ...)."""

    def need(condition: bool, what: str) -> None:
        if not condition:
            raise ValueError(f"not a reinfors-gym {what_document}: {what}")

    return need


def check_header(doc: Any, schema: str, fields: tuple[tuple[str, type], ...], need: Need) -> None:
    """`doc` is an object of `schema` whose `fields` have their types."""
    need(isinstance(doc, dict), "top level must be an object")
    need(doc.get("schema") == schema, f"schema must be {schema!r}, got {doc.get('schema')!r}")
    for key, kind in fields:
        need(isinstance(doc.get(key), kind), f"{key!r} must be a {kind.__name__}")


def check_stats(row: dict[str, Any], need: Need) -> None:
    """Each of a row's summaries has a median and a range, min <= median <= max."""
    for name, s in row["stats"].items():
        need(
            isinstance(s, dict) and {"median", "min", "max"} <= set(s),
            f"stats {name!r} of {row['id']} need median/min/max",
        )
        need(s["min"] <= s["median"] <= s["max"], f"stats {name!r} of {row['id']} unordered")


def write(doc: dict[str, Any], path: Path, validate: Callable[[Any], Any]) -> None:
    """Writes `doc` as JSON once `validate` accepts it."""
    validate(doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n")


def read(path: Path, validate: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """The document at `path`, as `validate` accepts it."""
    return validate(json.loads(Path(path).read_text()))
