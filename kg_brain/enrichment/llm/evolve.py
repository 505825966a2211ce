"""Context evolution: the clause an older note's context gains when a newer note links to it."""

from __future__ import annotations

import re

from kg_brain.base.vocab import LinkType
from kg_brain.enrichment.llm import text as tx

# How the old note reads the link the new note made to it.
_EVOLUTION_VERBS: dict[LinkType, str] = {
    LinkType.FIXES: "Fixed by",
    LinkType.SUPERSEDES: "Superseded by",
    LinkType.SUPPORTS: "Supported by",
    LinkType.CONTRADICTS: "Contradicted by",
    LinkType.CAUSED_BY: "Causes",
    LinkType.EXTENDS: "Extended by",
    LinkType.RELATES_TO: "See also",
    LinkType.PART_OF: "Includes",
}
_CLAUSE = re.compile(
    r'\s*(?:' + "|".join(map(re.escape, _EVOLUTION_VERBS.values())) + r') "(?P<title>[^"]*)"\.'
)
MAX_CLAUSES = 3  # evolution clauses kept in a context, newest last


def evolved_context(
    old_context: str, new_title: str, link_type: LinkType, limit: int
) -> str | None:
    """The old context plus one clause naming the new note; None when nothing would change.

    A clause about the same title replaces the earlier one, and the oldest clauses go first when
    there would be more than MAX_CLAUSES or the context would outgrow `limit`: the context is
    embedded with the note, and a tail of neighbours' titles would pull its vector towards them.
    """
    title = tx.trim_words(new_title.replace('"', "'"), 80)
    if not title:
        return None
    clause = f'{_EVOLUTION_VERBS[link_type]} "{title}".'
    if clause.casefold() in old_context.casefold():
        return None
    clauses = [m.group(0).strip() for m in _CLAUSE.finditer(old_context)]
    base = _CLAUSE.sub("", old_context).strip()
    clauses = [c for c in clauses if f'"{title}".'.casefold() not in c.casefold()] + [clause]
    while len(clauses) > MAX_CLAUSES or (len(clauses) > 1
                                         and len(_compose(base, clauses)) > limit):
        clauses.pop(0)
    if len(_compose(base, clauses)) > limit:
        base = tx.trim_words(base, max(0, limit - len(clause) - 1))
    result = _compose(base, clauses)
    return None if result == old_context.strip() else result


def _compose(base: str, clauses: list[str]) -> str:
    return " ".join([base, *clauses]) if base else " ".join(clauses)
