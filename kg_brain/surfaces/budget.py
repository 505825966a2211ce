"""Answers that fit: every tool answer within a size budget, applied once for the whole server.

Clients cut long tool answers (OpenCode keeps 51,200 bytes of whole lines, and a kg-brain answer
is one JSON line, so a longer one reaches the model as nothing). `AnswerBudget` is a middleware:
every tool registered on the server, now or later, gets its answer measured as the client will
receive it (the JSON text content) and trimmed when it is over its budget: the largest part
shrinks first, a list losing items from its end (lists are ranked, so the tail matters least),
a text being cut. A trimmed answer says what was left out (`trimmed`: list items
or characters per path) and how to get it (`note`). Budgets are DEFAULT_BYTES unless a tool is
listed in BUDGETS; none exceeds CEILING_BYTES, whatever the arguments. A page of notes is cut
before the middleware sees it (`fit_page`), so that its cursor resumes at the first note left out.
"""

from __future__ import annotations

import copy
from typing import Any

from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult

from kg_brain.domain.browsing import NotePage

DEFAULT_BYTES = 12_000
CEILING_BYTES = 45_000
BUDGETS = {"recall": 40_000, "get_related": 16_000, "open_session": 16_000}
RESERVE = 600  # room for `trimmed` and `note`
CUT_MARK = " [...]"
HINTS = {
    "search_memory": "lower top_k, or recall(zk_ids) for the hits you need",
    "deep_search": "lower top_k, or recall(zk_ids) for the hits you need",
    "recall": "recall fewer ids at a time",
    "get_related": "lower depth or max_nodes, or call get_related on one of the nodes shown",
    "preflight_check": "lower top_k, or recall(zk_ids) for the full notes",
}
GENERIC_HINT = "ask for less (a lower limit or top_k), or recall(zk_ids) for full notes"

Path = tuple[str | int, ...]


def size(data: dict[str, Any]) -> int:
    """Bytes of the answer's text content exactly as the server sends it."""
    return len(ToolResult(structured_content=data).content[0].text.encode())  # type: ignore[union-attr]


def budget_for(tool: str) -> int:
    return min(BUDGETS.get(tool, DEFAULT_BYTES), CEILING_BYTES)


def _name(path: Path) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def _walk(node: Any, path: Path = ()) -> list[tuple[Path, Any]]:
    """Every list and string under `node`, with its path."""
    found: list[tuple[Path, Any]] = []
    children = (node.items() if isinstance(node, dict)
                else enumerate(node) if isinstance(node, list) else ())
    for key, child in children:
        if isinstance(child, (list, str)):
            found.append(((*path, key), child))
        if isinstance(child, (list, dict)):
            found.extend(_walk(child, (*path, key)))
    return found


def _shrink(data: dict[str, Any], over: int, omitted: dict[str, int]) -> bool:
    """Drop the tail of the largest list that can lose an item, or cut the longest text when
    it is larger; False when nothing is left to shrink."""
    parts = _walk(data)
    lists = [(p, v, len(repr(v))) for p, v in parts if isinstance(v, list) and len(v) > 1]
    texts = [(p, v, len(v)) for p, v in parts if isinstance(v, str) and len(v) > 200]
    if not lists and not texts:
        return False
    path, value, weight = max(lists + texts, key=lambda part: part[2])
    if isinstance(value, list):
        drop = min(len(value) - 1, max(1, -(-over // max(1, weight // len(value)))))
        del value[-drop:]
    else:
        keep = max(100, len(value) - over - len(CUT_MARK))
        parent: Any = data
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = value[:keep] + CUT_MARK
        drop = len(value) - keep
    omitted[_name(path)] = omitted.get(_name(path), 0) + drop
    return True


def fit(tool: str, data: dict[str, Any]) -> dict[str, Any]:
    """`data` when it is within the tool's budget, else a trimmed copy that says what it left
    out and how to get it."""
    budget = budget_for(tool)
    if size(data) <= budget:
        return data
    trimmed, left_out = copy.deepcopy(data), {}
    while (over := size(trimmed) - (budget - RESERVE)) > 0 and _shrink(trimmed, over, left_out):
        pass
    trimmed["trimmed"] = left_out
    trimmed["note"] = (f"This answer was trimmed to fit {budget // 1000} KB: `trimmed` counts "
                       "the list items (or text characters) left out at each path. To see "
                       f"them, {HINTS.get(tool, GENERIC_HINT)}.")
    return trimmed


def fit_page(tool: str, page: NotePage) -> NotePage:
    """`page` when it is within the tool's budget, else its longest head that is, whose cursor
    resumes at the first note left out: trimming a page must not hide notes from paging."""
    budget = budget_for(tool)
    if len(page.notes) < 2 or size(page.model_dump(mode="json")) <= budget:
        return page  # one note too large is left to the middleware, which cuts its texts
    fits, over = 1, len(page.notes)  # the first is always kept; `over` is known not to fit
    while over - fits > 1:
        middle = (fits + over) // 2
        if size(page.head(middle).model_dump(mode="json")) <= budget - RESERVE:
            fits = middle
        else:
            over = middle
    cut = page.head(fits)
    cut.hint = (f"{fits} of {len(page.notes)} notes fit this answer ({budget // 1000} KB): "
                f"next_cursor resumes at the rest. {page.hint}")
    return cut


class AnswerBudget(Middleware):
    """Trims every tool's structured answer to the tool's budget (the text content follows)."""

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext) -> Any:
        result = await call_next(context)
        data = result.structured_content
        if result.is_error or data is None:
            return result
        fitted = fit(context.message.name, data)
        if fitted is data:
            return result
        return ToolResult(structured_content=fitted, meta=result.meta)
