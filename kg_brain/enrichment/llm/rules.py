"""Rule-based link typing for the offline enricher.

A link reads "new note TYPE candidate". Types other than RELATES_TO need evidence the text
carries: kinds (a fix and the mistake it resolves), entities (the same subject), stated values
(a changed port or version), cue phrases (a cause, a part, a measured result). Two notes about
different subjects are not linked however alike they read; when no rule fires a similar pair is
RELATES_TO.
"""

from __future__ import annotations

import re

from kg_brain.base.vocab import LinkType, NoteKind
from kg_brain.enrichment.llm import lexicon as lx
from kg_brain.enrichment.llm import text as tx
from kg_brain.enrichment.llm.denial import NEGATION, denied_terms, says_wrong
from kg_brain.enrichment.llm.entities import (
    STRONG_SUBJECTS,
    Comparison,
    by_kind,
    compare,
    environments,
    owners_apart,
)
from kg_brain.enrichment.llm.kinds import infer_kind, kind_scores
from kg_brain.enrichment.llm.replaced import (
    UNNAMED_SLOTS,
    changed_value,
    clauses_naming,
    counted_apart,
    labels_shared,
    named_apart,
    names_replaced,
    replaced_elsewhere,
    slot_apart,
    slot_changed,
)
from kg_brain.enrichment.llm.types import Candidate, EntityKind, NoteDraft

# A replaced value specific enough to name one setting's old value: a version ("1.21.6") or a
# quantity with its unit ("500 ms", "30 days", "2 GB"); not a bare number nor a word, which
# look-alike notes of other settings state as often.
_UNIT = r"(?:ms|s|sec|seconds?|m|min|minutes?|h|hours?|d|days?|weeks?|kb|mb|gb|tb|%)"
_SPECIFIC = re.compile(rf"\d\.\d|\d\s?{_UNIT}(?:\s|$)", re.I)
_OLD_NUMBER = re.compile(r"(?:^|\s)(\d+)(?: -> \S+)?$")  # "30", "ttl 30 -> 45" (changed_value)
_NAME_LIKE = re.compile(r"\w[-_.]\w")
_ENVIRONMENTS = frozenset({"staging", "production", "dev", "qa", "uat", "preview", "sandbox",
                           "canary"})
SAME_SUBJECT_SIMILARITY = 0.6  # without a shared entity, this similar is one subject
ANCHOR_MARGIN = 0.1  # a shared specific entity admits a pair this far below the floor
EXTENDS_OVERLAP = 0.6
PART_TERMS_MIN = 2


_FAILURE_REMEDY_KINDS = (NoteKind.MISTAKE, NoteKind.FIX, NoteKind.DECISION)
_SUPPORTED_KINDS = (NoteKind.DECISION, NoteKind.PATTERN)
_WHEN = frozenset({"date", "time"})
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
# A date or time that moved: "now" alone does not say so (a turn of a conversation is "now" at
# its own date), so two notes dated differently are about two events unless one says this, and
# says it of a date: "moved to Friday", not "since I moved from my home country" or "a book that
# moved me" (_moved_date).
_MOVED = re.compile(r"\b(?:moved|postponed|rescheduled|pushed (?:back|out)|delayed|brought "
                    r"forward|from \S+(?: \S+)? to)\b", re.I)
_CHANGE = re.compile(
    r"\b(?:now|no longer|any ?more|switched|moved|migrated|replaced|rewritten|renamed|"
    r"upgraded|downgraded|(?<![.\w-])updated|bumped|raised|lowered|reduced|increased|cut|"
    r"retired|changed|"
    r"halved|doubled|scaled|extended|shortened|revers(?:ed|ing)|turned (?:on|off)|dropped to|"
    r"stopped (?:using|writing|running|deploying|sending)|"
    r"(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bbeen )set to|down to|(?:up|down) from|"
    r"went (?:up |down |back )?to|(?:passed|handed|transferred|reassigned) (?:over )?(?:from|to)|"
    r"from \S+ to|instead of)\b|"
    r"\((?:(?:it|they|that) )?(?:was|were)\b|(?:#|//)\s*(?:was|previously)\b|→|"
    r"\d\s?[a-z%]{0,7}\s*->\s*v?\d", re.I)
# "weekly (was monthly)", "= 800  # was 200", "30 s → 60 s", "1.4 -> 1.6"; a bare
# "was" narrates ("when I was 10", "we were given") more often than it marks a change
_NO_LONGER = re.compile(r"\b(?:no longer|any ?more)\b", re.I)
_STOPPED = re.compile(r"\bno longer (\w+)", re.I)
_CAUSE = re.compile(
    r"\b(?:because(?: of)?|caused by|due to|root cause(?: is| was)?|results? from|"
    r"a result of|stems? from|triggered by|traced (?:back )?to|came from|since)\b", re.I)
_PART = re.compile(
    r"\b(?:step|stage|phase|part|component|piece|screen|section|subcommand|command|member)s?"
    r"(?: \d+)? (?:of|in)\b|\bone of the\b|\bpart of\b|"
    r"\bis the \w+ (?:component|stage|phase|step|part|store|service)\b", re.I)
_ENUMERATES = re.compile(
    r":[^.]*,[^.]*,|[^.,]+,[^.,]+,[^.]*\band\b|\b(?:has|have|covers|consists of|includes|"
    r"is split into|are)\s+(?:\w+\s+){0,2}(?:two|three|four|five|six|seven|\d+)\b", re.I)
_EVIDENCE = re.compile(
    r"\b(?:measured|benchmark\w*|tested|profil\w+|load test\w*|incident|outage|"
    r"were unaffected|survived|held through|dropped from|fell|shrank|cut \w+ from)\b|"
    r"\d+(?:\.\d+)?\s?(?:%|x|ms|s|MB|GB|KB|rps|events/s)\b", re.I)


def classify_link(note: NoteDraft, cand: Candidate, floor: float) -> tuple[LinkType, str] | None:
    """The most specific link type the text supports, with a short reason; None when the
    pair is too far apart or about different subjects."""
    cmp = compare(note.content, cand.content, frozenset(note.entities),
                  frozenset(cand.entities))
    sim = cand.similarity
    if sim < floor and not (cmp.shared_anchors and sim >= floor - ANCHOR_MARGIN):
        return None
    kind = infer_kind(note.content, note.note_kind)
    other = infer_kind(cand.content, cand.note_kind)
    remedy = kind in _FAILURE_REMEDY_KINDS and other in _FAILURE_REMEDY_KINDS and kind != other
    stated = None if remedy else _states_replaced(note, cand, cmp, other)
    if stated:  # the new note names the very value the old one states as the one it replaced
        return LinkType.SUPERSEDES, f"replaces {stated}"
    if cmp.subject_conflict:
        return None
    same_subject = bool(cmp.shared_anchors) or sim >= SAME_SUBJECT_SIMILARITY
    if kind == NoteKind.FIX and _problem(cand.content, other):
        if same_subject:
            return LinkType.FIXES, _why("resolves this problem", cmp)
        return None  # a fix for another problem: alike in words only
    if remedy:
        # a failure, its fix, the decision behind it: related, never contradicting
        cause = _caused_by(note.content, cand.content, cmp) if kind == NoteKind.MISTAKE else None
        return cause or _fallback(sim, floor, note, cand, cmp)
    for rule in (_supersedes, _contradicts, _caused_by_rule, _part_of, _supports, _extends):
        verdict = rule(note, cand, cmp, kind, other, same_subject)
        if verdict:
            return verdict
    return _fallback(sim, floor, note, cand, cmp)


def _problem(text: str, kind: str) -> bool:
    """A recorded mistake, or a note of another kind that describes a failure."""
    if kind == NoteKind.MISTAKE:
        return True
    return kind not in _FAILURE_REMEDY_KINDS and NoteKind.MISTAKE in kind_scores(text)


def _fallback(sim: float, floor: float, note: NoteDraft, cand: Candidate,
              cmp: Comparison) -> tuple[LinkType, str] | None:
    """RELATES_TO for a similar pair; a weakly similar one must also share an entity or two
    content words, else it only reads alike (two notes of one project, say)."""
    if sim < floor:
        return None
    if sim < SAME_SUBJECT_SIMILARITY and not cmp.shared and len(
            tx.strong_terms(note.content) & tx.strong_terms(cand.content)) < 2:
        return None
    return LinkType.RELATES_TO, f"similar ({sim:.2f})"


def _why(reason: str, cmp: Comparison) -> str:
    shared = sorted(cmp.shared_anchors or cmp.shared)[:3]
    return f"{reason} (shares {', '.join(shared)})" if shared else reason


Rule = tuple[LinkType, str] | None


def _supersedes(note: NoteDraft, cand: Candidate, cmp: Comparison, kind: str, other: str,
                same: bool) -> Rule:
    """Same subject, another value for a slot both state: the newer fact replaces the older.
    The subject is named on both sides (an entity, or two content words): notes alike but for
    an uncaught name ("alpha-3" / "alpha-4"), or stating values beside rival names (`slot_apart`),
    are about two things. Without a word of change the pair is only related; a choice changes
    as `_choice_changed` reads it. Not against a recorded mistake: a change that makes a
    failure go away fixes it, and the failure's numbers ("p99 climbs to 4 s") are no
    setting's."""
    if not same or other == NoteKind.MISTAKE or owners_apart(note.content, cand.content):
        return None
    replaced = _named_replacement(note, cand, other)
    if replaced:  # the old value itself is what both name
        return LinkType.SUPERSEDES, f"replaces {replaced}"
    if not (cmp.shared or len(tx.strong_terms(note.content)
                              & tx.strong_terms(cand.content)) >= 2):
        return None
    changed = {s for s in cmp.value_conflict
               if (slot_changed(s, note.content, cand.content) if s in UNNAMED_SLOTS
                   else not slot_apart(s, note.content, cand.content))
               and not (replaced_elsewhere(s, note.content, cand.content)
                        and _names_more(cand.content, note.content, cmp))
               and not (s == "number" and counted_apart(note.content, cand.content))}
    if not (_moved_date(note.content, cand.content) or _ISO_DATE.search(note.content)
            and _ISO_DATE.search(cand.content)):
        changed -= _WHEN  # notes dated on other days tell of other events, unless the date is
        # a setting's value (an API version 2024-04-10) or one says it moved ("from May 3 to")
    if changed and not says_change(note.content):
        # another value and no word of a change: as often two things (two apps, two models)
        # as one thing changed, so a weaker link that says what differs; more values for a
        # slot, the old one among them, is more detail (left to the other rules)
        facts_new, facts_old = cmp.facts
        if all(facts_new.values[s] >= facts_old.values[s] for s in changed
               if s in facts_new.values and s in facts_old.values):
            return None
        return LinkType.RELATES_TO, f"states another {', '.join(sorted(changed)[:3])}"
    if changed:
        return LinkType.SUPERSEDES, f"changes {', '.join(sorted(changed)[:3])}"
    new_choices = _choice_changed(note.content, cand.content)
    if new_choices:
        return LinkType.SUPERSEDES, f"changes the choice to {', '.join(sorted(new_choices))}"
    return None


def _names_more(old: str, new: str, cmp: Comparison) -> bool:
    """The old text names something the new one does not (an entity or a content word:
    "sampling of soil moisture" beside "sampling of cabin humidity"), or nothing both name:
    where the new note names another replaced value, the old one's value is then another
    thing's; one naming only what the new note names ("auto_suspend on TRANSFORM_WH is now
    437 s") states the same setting at a value no note between them recorded."""
    return (not cmp.shared or bool(tx.subject_terms(old) - tx.subject_terms(new))
            or bool({k for keys in by_kind(old).values() for k in keys} - cmp.shared))


def _states_replaced(note: NoteDraft, cand: Candidate, cmp: Comparison, other: str) -> str | None:
    """The old value a change note names as replaced ("(was 1.21.6)", "up from 30 days",
    "moved from 04:30") when the candidate states it and the value is specific (a version, a
    quantity with its unit: a bare number is in every note): the pair is one subject whatever
    else each mentions (the files, tools and hosts around a setting change with it), unless
    the clauses naming the value name different services, people or environments."""
    replaced = _named_replacement(note, cand, other) if says_change(note.content) else None
    if (not replaced or _other_owner(note.content, cand.content, cmp, replaced)
            or owners_apart(note.content, cand.content)):
        return None
    if _SPECIFIC.search(replaced):
        return replaced
    # a plain number counts where the old text states it with a word the new text gives its own
    # number (`labels_shared`): weaker, so the notes must share an entity or that word be a
    # name, and the clauses naming it no rival subjects ("the fleet client" / "the rostering
    # client")
    number = _OLD_NUMBER.search(replaced)
    labels = labels_shared(number.group(1), note.content, cand.content) if number else set()
    new, old = clauses_naming(replaced, note.content), clauses_naming(replaced, cand.content)
    named = {k for text in (new, old) for kind, keys in by_kind(text).items()
             if kind in STRONG_SUBJECTS or kind == EntityKind.PHRASE for k in keys}
    if not labels or compare(new, old).subject_conflict & named:
        return None
    return replaced if cmp.shared or any(map(_NAME_LIKE.search, labels)) else None


def _other_owner(new: str, old: str, cmp: Comparison, value: str) -> bool:
    """The clauses naming `value` name different services, people or environments ("one slow
    etcd write" in another clause than "ttl to 45" is not what the ttl is set on)."""
    owners = {k for text in (new, old) for kind, keys in by_kind(text).items()
              if kind in (EntityKind.SERVICE, EntityKind.PERSON) for k in keys}
    conflict = cmp.subject_conflict & (owners | _ENVIRONMENTS)
    if not conflict:
        return False
    near = f"{clauses_naming(value, new)} {clauses_naming(value, old)}"
    named = {k for keys in by_kind(near).values() for k in keys} | environments(near)
    return not near.strip() or bool(conflict & named)


def _named_replacement(note: NoteDraft, cand: Candidate, other: str) -> str | None:
    """The old value the new note names as replaced ("instead of X", "(was X)", "X is gone",
    "bumped to 0.74" after "on 0.71") when the candidate states it. Not against a problem, nor
    when the new note says a symptom of the old one stopped ("no longer janks"): a change that
    makes a failure go away fixes it. Not when the new note denies what the old one asserts
    without saying it changed (that contradicts), nor beside rival names (`named_apart`)."""
    if _problem(cand.content, other) or _symptom_stopped(note.content, cand.content):
        return None
    if (NEGATION.search(note.content) and not NEGATION.search(cand.content)
            and not _NO_LONGER.search(note.content)):
        return None
    replaced = names_replaced(note.content, cand.content)
    if replaced and named_apart(replaced, note.content, cand.content):
        return None  # the same value of two things of one sort ("app-sms" / "app-audit")
    return replaced or changed_value(note.content, cand.content)


def _symptom_stopped(note_text: str, cand_text: str) -> bool:
    """The new note says something the old one describes no longer happens."""
    stopped = {tx.stem(m.group(1).lower()) for m in _STOPPED.finditer(note_text)}
    return bool(stopped & tx.content_terms(cand_text))


def _moved_date(note_text: str, cand_text: str) -> bool:
    """A sentence of the new note says a date or time moved, names it after the cue, and is
    about what the candidate is about (two of its content words, besides the date)."""
    other = tx.strong_terms(cand_text)
    for sentence in tx.prose_sentences(note_text):
        cue = _MOVED.search(sentence)
        if cue and tx.WHEN_WORDS.search(sentence[cue.end():]) and len(
                tx.subject_terms(sentence) & other) >= 2:
            return True
    return False


def says_change(text: str) -> bool:
    """The text announces a change ("now", "moved to", "bumped", "from X to Y")."""
    return bool(_CHANGE.search(text) or _MOVED.search(text))


def restates(new: str, old: str) -> bool:
    """Whether a new text alike in wording to an old one can be the same statement: not when
    it announces a change or denies what the other asserts (one negates, the other not)."""
    return not says_change(new) and bool(NEGATION.search(new)) == bool(NEGATION.search(old))


def _choice_changed(new: str, old: str) -> set[str]:
    """The choices a sentence of the new text names beside one of the old text's and a word of
    change ("rewritten on Typer; Click is only a transitive dependency now" after "built with
    Click"); one named apart from them is as often about another part of the system."""
    olds = _choices(old)
    found: set[str] = set()
    for sentence in tx.prose_sentences(new):
        here = _choices(sentence)
        if here & olds and here - olds and _CHANGE.search(sentence):
            found |= here - olds
    return found


def _choices(text: str) -> set[str]:
    """The libraries, tools and known services a text names: a service named by a phrase ("the
    import worker") is a part of the system, not a choice."""
    grouped = by_kind(text)
    return {k for kind in (EntityKind.LIBRARY, EntityKind.TOOL, EntityKind.SERVICE)
            for k in grouped.get(kind, set()) if kind != EntityKind.SERVICE or k in lx.KNOWN}


def _contradicts(note: NoteDraft, cand: Candidate, cmp: Comparison, kind: str, other: str,
                 same: bool) -> Rule:
    """One note denies what the other asserts about the same subject, with no change of value
    or time between them (that would be SUPERSEDES)."""
    if not same or (_CHANGE.search(note.content) and not says_wrong(note.content)):
        return None
    if says_wrong(note.content):
        return LinkType.CONTRADICTS, "says it is wrong"
    flipped = denied_terms(note.content, cand.content)
    if flipped:
        return LinkType.CONTRADICTS, f"denies what it states ({', '.join(sorted(flipped)[:3])})"
    return None


def _caused_by_rule(note: NoteDraft, cand: Candidate, cmp: Comparison, kind: str, other: str,
                    same: bool) -> Rule:
    return _caused_by(note.content, cand.content, cmp)


def _caused_by(note_text: str, cand_text: str, cmp: Comparison) -> Rule:
    """The new note names the candidate's subject after a cause cue ("because the pool ...")."""
    cause = _after_cue(_CAUSE, note_text)
    if not cause:
        return None
    hit = tx.strong_terms(cause) & tx.strong_terms(cand_text)
    anchors = {a for a in cmp.shared_anchors if a in cause.lower()}
    if len(hit) >= 2 or anchors:
        return LinkType.CAUSED_BY, f"names it as the cause ({', '.join(sorted(hit | anchors)[:3])})"
    return None


def _part_of(note: NoteDraft, cand: Candidate, cmp: Comparison, kind: str, other: str,
             same: bool) -> Rule:
    """A step, stage or component of a whole the candidate enumerates."""
    part = _PART.search(note.content)
    if not part or not _ENUMERATES.search(cand.content):
        return None
    whole = tx.strong_terms(note.content[part.start():]) & tx.strong_terms(cand.content)
    if len(whole) >= PART_TERMS_MIN:
        return LinkType.PART_OF, f"one part of it ({', '.join(sorted(whole)[:3])})"
    return None


def _supports(note: NoteDraft, cand: Candidate, cmp: Comparison, kind: str, other: str,
              same: bool) -> Rule:
    """Measured or observed evidence for a decision or pattern about the same subject."""
    if other not in _SUPPORTED_KINDS or kind in _FAILURE_REMEDY_KINDS or not same:
        return None
    if kind == NoteKind.RESEARCH or len(_EVIDENCE.findall(note.content)) >= 2:
        return LinkType.SUPPORTS, f"evidence for this {other}"
    return None


def _extends(note: NoteDraft, cand: Candidate, cmp: Comparison, kind: str, other: str,
             same: bool) -> Rule:
    """The candidate is shorter and most of its terms reappear in the new note, which adds
    detail rather than announcing a change."""
    if not same or _CHANGE.search(note.content):
        return None
    note_terms, cand_terms = tx.strong_terms(note.content), tx.strong_terms(cand.content)
    if not cand_terms or len(note_terms) < 1.5 * len(cand_terms):
        return None
    if len(cand_terms & note_terms) / len(cand_terms) >= EXTENDS_OVERLAP:
        return LinkType.EXTENDS, "adds detail to a more general note on the same subject"
    return None


def _after_cue(cue: re.Pattern[str], text: str) -> str:
    """The rest of each sentence after a cue, joined."""
    parts = []
    for sentence in tx.prose_sentences(text):
        match = cue.search(sentence)
        if match:
            parts.append(sentence[match.end():])
    return " ".join(parts)
