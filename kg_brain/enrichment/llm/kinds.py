"""Kind inference for notes the caller left at `general`: a label it opened with ("Fix: ..."),
else cue phrases scored per kind. Conservative: `general` unless one kind clearly leads.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kg_brain.base.vocab import NoteKind

MIN_SCORE = 2.0
MARGIN = 1.0

_LABELS: dict[str, NoteKind] = {
    **dict.fromkeys(["fix", "fixed", "resolved", "resolution", "solution", "workaround",
                     "solved", "the fix", "to fix"], NoteKind.FIX),
    **dict.fromkeys(["mistake", "bug", "gotcha", "pitfall", "regression", "incident",
                     "error", "failure", "problem", "issue", "broken", "lesson",
                     "lesson learned", "root cause", "postmortem", "post-mortem"],
                    NoteKind.MISTAKE),
    **dict.fromkeys(["decision", "decided", "adr", "we decided", "choice"], NoteKind.DECISION),
    **dict.fromkeys(["pattern", "convention", "the convention", "rule", "rule of thumb",
                     "best practice", "guideline", "tip", "how-to", "howto", "recipe"],
                    NoteKind.PATTERN),
    **dict.fromkeys(["todo", "next", "next step", "next steps", "open question", "open",
                     "follow-up", "follow up", "blocked", "wip", "pending", "remaining",
                     "not yet", "still open", "unresolved"], NoteKind.OPEN_THREAD),
    **dict.fromkeys(["research", "benchmark", "benchmarks", "finding", "findings",
                     "investigation", "measurement", "measurements", "comparison", "experiment",
                     "load test", "load testing", "profiling"], NoteKind.RESEARCH),
    **dict.fromkeys(["context", "project context", "overview", "stack", "architecture",
                     "setup"], NoteKind.PROJECT_CONTEXT),
}
# The words opening a note, up to a colon or dash within its first few words ("Fix: ...",
# "Solution for the CORS error: ...", "**TODO** - ...").
_LABEL = re.compile(r"^\s*(?:#+\s*|\*\*|\[)?([A-Za-z][\w' -]{0,60}?)\s*(?:\*\*|\])?\s*"
                    r"(?::|\s[-–—])\s")

_W = r"(?:\w+\s+){0,3}"
_CUES: dict[NoteKind, list[tuple[re.Pattern[str], float]]] = {
    NoteKind.FIX: [
        (re.compile(r"\b(?:fixed|resolved|solved|worked around)\s+(?:\S+\s+){0,6}?"
                    r"(?:by|with|after|via)\b", re.I), 3.0),
        (re.compile(r"\b(?:fixed|resolved|solved) the\b", re.I), 2.0),
        (re.compile(r"\b(?:went away|goes away|is gone|are gone|disappeared|stopped (?:failing|"
                    r"crashing|happening)|works again|pass(?:es)? again)\b", re.I), 2.0),
        # the failure named as over ("the segfault is fixed", "the 504s stopped", "the 504s on
        # the login page stopped", "finishes instead of timing out", "no longer occurs", "no more
        # OOMKilled pods", "loads without the KeyError") or the failing step succeeding again
        # ("the import succeeds again", "the image compiles again")
        (re.compile(r"\b(?:is|are|was|were|got|has been|have been) (?:now )?(?:fixed|resolved)\b|"
                    r"\b\w+[^s\W]s(?: (?:on|in|at|of|from|for|during) (?:the |an? )?[\w-]+"
                    r"(?: [\w-]+)?)? (?:stopped|ceased)(?=\s*(?:[.;,)]|$))|"
                    r"\bno more (?:\w+ )?\w*(?:error|exception|crash|loop|backoff|timeout|failure|"
                    r"panic|leak|deadlock|oom\w*|killed|restart)|"
                    r"\bwithout (?:the|an?|any)\s+(?:[\w'\"-]+\s+){0,3}?"
                    r"(?:\w*(?:error|exception)s?|failures?|crash(?:es)?|panics?)\b|"
                    r"\b(?:works?|succeeds?|pass(?:es)?|runs?|builds?|links?|starts?|loads?|"
                    r"imports?|connects?|deploys?|compiles?|installs?|migrates?|boots?|syncs?|"
                    r"saves?|matches?|match)(?: \w+)? again\b|\b(?:is|are) green again\b|"
                    r"\b(?:instead of|rather than) (?:timing out|failing|crashing|hanging|"
                    r"erroring)\b|"
                    r"\bno longer (?:happens?|occurs?|shows? up|appears?|recurs?)\b",
                    re.I | re.M), 2.0),
        (re.compile(r"\b(?:the|a|one)\s+(?:fix|solution|workaround|remedy)\s+(?:is|was|for)\b",
                    re.I), 3.0),
        (re.compile(r"\bto fix (?:this|it|that)\b|\bfix(?:ed)? (?:it|this) by\b", re.I), 3.0),
        (re.compile(r"\b(?:now (?:passes|works|succeeds)|no longer (?:fails|crashes|times out|"
                    r"errors|throws|raises|hangs|breaks))\b", re.I), 2.0),
        (re.compile(r"\b(?:fixed|resolved)\b", re.I), 1.5),
        (re.compile(r"^\s*to (?:fix|solve|resolve|avoid|get rid of)\b[^.]*?,", re.I | re.M), 3.0),
    ],
    NoteKind.MISTAKE: [
        (re.compile(r"\b\w*(?:Error|Exception|Violation)\b|\bE[A-Z]{4,}\b|\bHTTP [45]\d\d\b|"
                    r"\bOOM\w*\b|\bstack ?trace\b|\btraceback\b|\bsegfault\b"), 2.0),
        (re.compile(r"\b(?:failed|fails|failing|broke|breaks|crashed|crashes|crashing|threw|"
                    r"throws|raised|hangs|hung|timed out|times out|deadlock(?:ed|s)?|leaked|"
                    r"corrupted|lost|silently|wrongly|returned (?:HTTP )?[45]\d\d)\b", re.I), 1.5),
        (re.compile(r"\b(?:by mistake|accidentally|forgot to|forgetting to|mistakenly|"
                    r"inadvertently)\b", re.I), 2.0),
        (re.compile(r"\b(?:twice|duplicated?|stale|wrong|missing|incorrect(?:ly)?|"
                    r"unexpected(?:ly)?|flaky|flakes?)\b", re.I), 1.0),
        (re.compile(r"\b(?:do not|don't|never)\s+" + _W + r"(?:again|twice)\b|"
                    r"\blesson learned\b|\bcaused an? (?:outage|incident|bug)\b", re.I), 2.0),
    ],
    NoteKind.DECISION: [
        (re.compile(r"(?:\bwe |^\s*)(?:decided|chose|picked|agreed|settled on|went with|"
                    r"are going with|will use|standardi[sz]ed on|opted)\b|\bdecision\b|"
                    r"\bchose \w+ over\b|"
                    r"\bgoing with\b|\bwe use \S+ (?:over|rather than|instead of)\b", re.I), 3.0),
        (re.compile(r"\b(?:rationale|trade-?offs?|alternatives? considered|rejected)\b", re.I),
         1.0),
    ],
    NoteKind.PATTERN: [
        (re.compile(r"^\s*(?:always|never|prefer|avoid|whenever|when(?:ever)? you)\b", re.I | re.M),
         2.5),
        (re.compile(r"\b(?:as a rule|rule of thumb|best practice|the (?:idiom|convention|pattern) "
                    r"(?:is|here)|the way to \w+ is|by convention|the recipe)\b", re.I), 2.5),
    ],
    NoteKind.OPEN_THREAD: [
        (re.compile(r"\bTODO\b|\bFIXME\b|\bnext(?: step)?s?:|\bstill (?:need|needs|have|has) to\b|"
                    r"\b(?:not yet|unresolved|open question|follow[- ]up|blocked on|to be decided|"
                    r"left to do|remains to be|pick (?:this|it) up)\b|"
                    r"\b(?:haven'?t|hasn'?t|isn'?t|aren'?t|not)\b[^.;]*\byet\b", re.I), 3.0),
        (re.compile(r"\b(?:next session|later|need to (?:investigate|check|decide|find out))\b",
                    re.I), 1.0),
    ],
    NoteKind.RESEARCH: [
        (re.compile(r"\b(?:benchmark(?:ed|s)?|measured|profil(?:ed|ing)|compared|evaluated|"
                    r"according to|docs? (?:say|says|state|states)|documentation says|"
                    r"experiment(?:ed)?|we tested|load[- ]test(?:ed|ing)?|"
                    r"results? (?:show|showed))\b", re.I), 2.5),
        (re.compile(r"\bp(?:50|95|99)\b|\b\d+(?:\.\d+)?\s?(?:ms|rps|qps|req/s)\b|\b\d+x faster\b|"
                    r"\bfaster than\b|\bslower than\b", re.I), 1.0),
    ],
    NoteKind.PROJECT_CONTEXT: [
        (re.compile(r"\b(?:this|the|our) (?:project|repo|repository|codebase|monorepo|app|stack)"
                    r" (?:is|uses|has|runs|lives|targets|ships|consists)\b|\bour stack\b|"
                    r"\bis deployed (?:to|on)\b|\blives in\b", re.I), 2.5),
    ],
}


def infer_kind(text: str, given: str = NoteKind.GENERAL) -> str:
    """The given kind unless it is `general`; then the kind the text reads as, or `general`."""
    return given if given != NoteKind.GENERAL else _read_kind(text)


@lru_cache(maxsize=1024)
def _read_kind(text: str) -> str:
    """The kind the text reads as, or `general`; cached, since a write asks it of its note
    once per link candidate."""
    label = _label_kind(text)
    if label:
        return label
    scores = kind_scores(text)
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    if not ranked or ranked[0][1] < MIN_SCORE:
        return NoteKind.GENERAL
    best, score = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
    if scores.get(NoteKind.FIX, 0.0) >= 1.5 and NoteKind.MISTAKE in scores:
        return NoteKind.FIX  # a note that tells the fix records the resolution, failure and all
    return best if score - runner_up >= MARGIN else NoteKind.GENERAL


def _label_kind(text: str) -> NoteKind | None:
    """The kind named by the note's opening label: its first three, two or one words."""
    m = _LABEL.match(text)
    if not m:
        return None
    words = m.group(1).lower().replace("-", " - ").split()
    for size in (3, 2, 1):
        kind = _LABELS.get(" ".join(words[:size]).replace(" - ", "-"))
        if kind and len(words) >= size:
            return kind
    return None


def kind_scores(text: str) -> dict[NoteKind, float]:
    """Summed cue weights per kind (each cue counted once)."""
    scores: dict[NoteKind, float] = {}
    for kind, cues in _CUES.items():
        total = sum(weight for pattern, weight in cues if pattern.search(text))
        if total:
            scores[kind] = total
    return scores
