"""Plain-text helpers for the offline enricher: sentences, terms, code identifiers, topics.

Pure functions with no model access, so they are cheap enough to run on every write.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can cannot could couldn't did didn't do does doesn't
    doing don't down during each either else etc even ever every few for from further had hadn't
    has hasn't have haven't having he her here hers herself him himself his how however i if in
    into is isn't it it's its itself just let me more most much must my myself no nor not now of
    off on once one only or other otherwise our ours ourselves out over own per rather same she
    should shouldn't since so some still such than that the their theirs them themselves then
    there these they this those though through thus to too under until up upon us very via was
    wasn't we were weren't what when where whether which while who whom why will with within
    without won't would wouldn't yet you your yours yourself yourselves
    e.g i.e eg ie vs via don doesn didn isn aren wasn weren won wouldn shouldn couldn hasn haven
    hadn can't let's
    """.split()
)

# Words that carry no topic on their own; they may sit inside a phrase but never alone.
WEAK_WORDS = frozenset(
    """
    use used uses using make makes made need needs needed get gets got set sets run runs ran call
    calls called return returns returned thing things way ways time times lot lots something
    anything everything case cases note notes issue issues problem problems first second new old
    instead always never really actually basically simply already whole part parts kind work
    works worked working want wants try tried tries see seen look looks able good bad better best
    fine ok okay sure yes true false done next last many several various like likely unlikely
    add adds added change changes changed keep keeps kept happen happens happened now today
    give gives gave stay stays stayed support supports supported build builds built load loads
    loaded put puts wait waits waited fix fixes fixed choose chose chosen report reports serve
    serves serving served wipe wiping take takes took pass passes passing fail fail failing
    break breaks allow allows let lets require requires required provide provides contain
    contains include includes handle handles create creates created start starts started stop
    stops read reads write writes show shows check checks remove removes avoid avoids ensure
    ensures prevent prevents mean means seem seems become becomes go goes went come comes know
    knows think thought find finds found filter filters give giving getting going doing
    otherwise instead rather alone probably maybe quite
    """.split()
)

_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "Mr.", "Dr.", "No.")
_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.S)
_LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")
_HTML = re.compile(
    r"</?(?:a|b|i|u|p|br|hr|em|strong|code|pre|div|span|img|ul|ol|li|h[1-6]|table|tr|td|th|"
    r"details|summary|sup|sub|kbd|blockquote)\b[^<>]*>",
    re.I,
)
_LINE_MARK = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*+•]\s+|\d{1,3}[.)]\s+|\[[ xX]\]\s+)")
_EMPHASIS = re.compile(r"(\*\*|__|~~)(.+?)\1")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'`(\[]?[A-Za-z0-9])")
_CODE_TOKEN = re.compile(
    r"(?<!\S)\S*\w[_./]\w\S*|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z0-9]+[A-Z]\w*|--\w\S*")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")

_IDENTIFIER_PATTERNS = (
    re.compile(r"`([^`\n]{2,40})`"),  # inline code
    re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|go|rs|java|"
               r"kt|rb|php|c|h|cc|cpp|hpp|cs|swift|sh|toml|ya?ml|json|md|sql|cypher|ini|cfg|lock|"
               r"txt|html|css|env|conf))\b"),  # file names and paths
    re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\("),  # dotted calls
    re.compile(r"\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b"),  # UPPER_SNAKE env vars
    re.compile(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b"),  # snake_case
    re.compile(r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\b"),  # CamelCase / ErrorNames
    re.compile(r"\b([a-z]+(?:[A-Z][a-z0-9]+)+)\b"),  # camelCase
    re.compile(r"(?<![\w-])(--[a-z][\w-]+)"),  # CLI flags
)

TOPIC_WORDS: dict[str, str] = {
    **dict.fromkeys(["python", "py", "pip", "uv", "pyproject", "venv", "asyncio"], "python"),
    **dict.fromkeys(["typescript", "ts", "tsx", "tsc"], "typescript"),
    **dict.fromkeys(["javascript", "js", "node", "nodejs", "npm", "yarn", "pnpm"], "javascript"),
    **dict.fromkeys(["rust", "cargo", "rs"], "rust"),
    **dict.fromkeys(["golang"], "go"),
    **dict.fromkeys(["java", "jvm", "maven", "gradle", "kotlin"], "java"),
    **dict.fromkeys(["neo4j", "cypher"], "neo4j"),
    **dict.fromkeys(["postgres", "postgresql", "psql", "mysql", "sqlite", "sql"], "sql"),
    **dict.fromkeys(["docker", "dockerfile", "compose", "container", "containers"], "docker"),
    **dict.fromkeys(["kubernetes", "k8s", "kubectl", "helm"], "kubernetes"),
    **dict.fromkeys(["git", "github", "gitlab", "rebase", "commit", "merge"], "git"),
    **dict.fromkeys(["react", "nextjs", "vue", "svelte"], "frontend"),
    **dict.fromkeys(["llm", "openai", "qwen", "embedding", "embeddings", "prompt"], "llm"),
    **dict.fromkeys(["mcp", "fastmcp"], "mcp"),
    **dict.fromkeys(["bash", "shell", "zsh"], "shell"),
    **dict.fromkeys(["aws", "s3", "gcp", "azure"], "cloud"),
    **dict.fromkeys(["error", "exception", "traceback", "crash", "crashes", "bug", "broken",
                     "regression", "segfault", "fails", "failed", "failure"], "bug"),
    **dict.fromkeys(["config", "configuration", "env", "settings", "setting", "yaml", "toml",
                     "ini", "dotenv"], "config"),
    **dict.fromkeys(["slow", "latency", "performance", "throughput", "p50", "p95", "p99", "oom",
                     "leak", "profiling"], "performance"),
    **dict.fromkeys(["secret", "secrets", "auth", "authentication", "credential",
                     "credentials", "vulnerability", "cve", "permission", "permissions"],
                    "security"),
    **dict.fromkeys(["test", "tests", "pytest", "unittest", "jest", "fixture", "fixtures",
                     "flaky"], "testing"),
    **dict.fromkeys(["database", "db", "index", "indexes", "query", "queries", "migration",
                     "schema"], "database"),
    **dict.fromkeys(["api", "endpoint", "http", "rest", "grpc", "webhook"], "api"),
    **dict.fromkeys(["dependency", "dependencies", "upgrade", "lockfile", "poetry"],
                    "dependencies"),
    **dict.fromkeys(["ci", "pipeline", "workflow", "actions", "deploy", "deployment"], "ci"),
}


def strip_markdown(text: str) -> str:
    """Prose without fences, links, emphasis or list marks, so titles read as sentences."""
    text = _FENCE.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    text = _HTML.sub(" ", text)
    lines = [_LINE_MARK.sub("", line) for line in text.splitlines()]
    text = "\n".join(lines)
    text = _EMPHASIS.sub(r"\2", text)
    return text.replace("`", "")


def split_sentences(text: str) -> list[str]:
    """Sentences of one paragraph, not split at abbreviations, versions or file names."""
    protected = text
    for i, abbr in enumerate(_ABBREVIATIONS):
        protected = protected.replace(abbr, f"\x00{i}\x00")
    parts = _SENTENCE_END.split(protected)
    out = []
    for part in parts:
        for i, abbr in enumerate(_ABBREVIATIONS):
            part = part.replace(f"\x00{i}\x00", abbr)
        part = " ".join(part.split())
        if part:
            out.append(part)
    return out


def prose_sentences(text: str) -> list[str]:
    """All sentences of a markdown text; headings and list items never run into each other."""
    sentences: list[str] = []
    for block in markdown_blocks(text):
        sentences.extend(split_sentences(strip_markdown(block)))
    return sentences


def markdown_blocks(text: str) -> list[str]:
    """Paragraphs, with each heading and list item a block of its own; code fences dropped."""
    text = _FENCE.sub("\n\n", text)
    lines = [f"\n{line}\n" if _LINE_MARK.match(line) else line for line in text.splitlines()]
    return [b.strip() for b in re.split(r"\n\s*\n", "\n".join(lines)) if b.strip()]


def is_heading(block: str) -> bool:
    return bool(re.match(r"^\s*#{1,6}\s", block))


def trim_words(text: str, limit: int) -> str:
    """Cut within limit characters: at a clause break if one is late enough, else a word."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text.rstrip(" ,;:-")
    cut = text[:limit]
    clause = max(cut.rfind(", "), cut.rfind("; "), cut.rfind(" - "), cut.rfind(" — "))
    if clause >= limit * 0.4:
        cut = cut[:clause]
    elif " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:-(")


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters first, digits and inner hyphens allowed)."""
    return [w.lower() for w in _WORD.findall(text)]


def stem(word: str) -> str:
    """A crude singular form, enough to treat 'indexes'/'index' and 'tests'/'test' alike."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("xes", "ses", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def content_terms(text: str) -> set[str]:
    """Stemmed content words: the cheap lexical fingerprint used by the link rules."""
    return {stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 2}


def identifiers(text: str) -> list[str]:
    """Code identifiers in order of first appearance: strong, literal search terms."""
    found: dict[str, int] = {}
    for pattern in _IDENTIFIER_PATTERNS:
        for match in pattern.finditer(text):
            ident = match.group(1).strip().rstrip(".,:;()")
            if "/" in ident and not ident.startswith("`"):
                ident = ident.rsplit("/", 1)[-1]
            if len(ident) >= 3 and ident.lower() not in STOPWORDS:
                found.setdefault(ident, match.start())
    return sorted(found, key=found.__getitem__)


def candidate_phrases(text: str, max_words: int = 3) -> Counter[str]:
    """Stopword-free n-grams of the prose, counted: the pool keywords are chosen from."""
    counts: Counter[str] = Counter()
    prose = _CODE_TOKEN.sub(" | ", strip_markdown(_FENCE.sub(" ", text)))
    for chunk in re.split(r"[.,;:!?()\[\]{}\"<>|=\n]+", prose):
        run: list[str] = []
        for token in words(chunk) + [""]:
            if token and token not in STOPWORDS and len(token) > 1:
                run.append(token)
                continue
            counts.update(_ngrams(run, max_words))
            run = []
    return counts


def _ngrams(run: list[str], max_words: int) -> Iterable[str]:
    for size in range(1, max_words + 1):
        for i in range(len(run) - size + 1):
            gram = run[i : i + size]
            if gram[0] in WEAK_WORDS or gram[-1] in WEAK_WORDS:
                continue
            if size == 1 and len(gram[0]) < 3:
                continue
            yield " ".join(gram)


def detect_topics(text: str) -> list[str]:
    """Topic tags named by the text, most mentioned first."""
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for pos, token in enumerate(words(text)):
        topic = TOPIC_WORDS.get(token)
        if topic:
            counts[topic] += 1
            first.setdefault(topic, pos)
    for ext, topic in ((".py", "python"), (".ts", "typescript"), (".rs", "rust"), (".go", "go")):
        if re.search(rf"\w{re.escape(ext)}\b", text):
            counts[topic] += 1
            first.setdefault(topic, len(text))
    return sorted(counts, key=lambda t: (-counts[t], first[t]))


def slug(text: str) -> str:
    """A tag-shaped form: lower-case, words joined by hyphens."""
    return "-".join(re.findall(r"[a-z0-9]+", text.lower()))


# Words that date or time a statement rather than name its subject.
WHEN_WORDS = re.compile(
    r"\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b|"
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:today|tomorrow|tonight|noon|midnight|"
    r"weekend|morning|afternoon|evening|week|month|quarter|year|sprint|release)\b", re.I)


def strong_terms(text: str) -> set[str]:
    """Content terms that are not weak words: what two notes must share to be about one thing."""
    return {t for t in content_terms(text) if t not in WEAK_WORDS}


def subject_terms(text: str) -> set[str]:
    """Content words that can name a subject: not dates, months or times of day."""
    return {t for t in strong_terms(text) if not (t.isdigit() or WHEN_WORDS.fullmatch(t))}
