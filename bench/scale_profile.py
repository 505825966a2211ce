"""Where a search statement's time goes: each search run again under PROFILE with the exact
parameters the app gave it, its plan flattened into the operators that cost most."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kg_brain.base.cypher import query
from kg_brain.domain.search import Search
from kg_brain.root.app import Brain
from kg_brain.store.db import Database, Mode

TOP_OPERATORS = 8


class Recording:
    """Wraps a Database and keeps the name and parameters of the last statement run."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.last: tuple[str, dict[str, Any]] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)

    def run(self, name: str, mode: Mode, params: dict[str, Any],
            changes: tuple[str, ...] = ()) -> Any:
        self.last = (name, params)
        return self._db.run(name, mode, params, changes)


def _operators(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """Every operator of a profiled plan (the driver's dict), children after their parent."""
    args = plan.get("args", {})
    own = {"operator": plan.get("operatorType", "?"),
           "details": str(args.get("Details", ""))[:160],
           "db_hits": int(plan.get("dbHits", 0)), "rows": int(plan.get("rows", 0)),
           "time_ms": round(int(plan.get("time", args.get("Time", 0)) or 0) / 1e6, 2)}
    return [own, *(op for child in plan.get("children", []) for op in _operators(child))]


def profiled(brain: Brain, name: str, params: dict[str, Any]) -> dict[str, Any]:
    """One statement under PROFILE, as the server's line runs it: its total db hits and the
    costliest operators."""
    with brain.db.driver.session(database=brain.db.conn.database) as session:
        summary = session.run("PROFILE " + query(name, brain.db.line), params).consume()
    ops = _operators(summary.profile or {})
    return {"statement": name, "db_hits": sum(op["db_hits"] for op in ops),
            "planner_ms": summary.result_available_after,
            "top": sorted(ops, key=lambda op: (-op["time_ms"], -op["db_hits"]))[:TOP_OPERATORS]}


def profile_searches(brain: Brain, projects: dict[str, str], query_text: str) -> dict[str, Any]:
    """search_memory and deep_search of `query_text` in each project ({label: project}),
    profiled without stamping access."""
    recording = Recording(brain.db)
    search = Search(replace(brain.deps, db=recording))  # type: ignore[arg-type]
    out: dict[str, Any] = {}
    for label, project in projects.items():
        search.search_memory(query_text, project, top_k=10, stamp=False)
        assert recording.last is not None
        out[f"search_memory.{label}"] = profiled(brain, *recording.last)
        search.deep_search(query_text, project, top_k=10, stamp=False)
        out[f"deep_search.{label}"] = profiled(brain, *recording.last)
    return out
