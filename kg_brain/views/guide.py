"""The kg-brain guide for Neo4j Browser and the style beside it, as served to the Browser.

The guide is generated from the saved queries in `cypher/browser/`, so what a person clicks is
the statement the tests run. A step may first set parameters: the project through a picker
statement run by the Browser's `:param [project] => { ... }` (its first row becomes the
parameter; the Browser runs it without the other parameters), others as literals: the decay
constants from the code, or NULL, which the query reads as "pick a good default". Blocks are
`<pre class="runnable">`, which Neo4j Browser 5 gives a play icon (run) and a click-to-edit;
`data-param` / `data-query` name what each block is.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from kg_brain.base.cypher import query
from kg_brain.base.private import private_dir
from kg_brain.domain.lifecycle import ACCESS_SATURATION, HALF_LIFE_DAYS, W_IMPORTANCE, W_RECENCY
from kg_brain.store.localdb.content import GUIDE_FILE, STYLE_FILE

GRASS = Path(__file__).with_name("kg-brain.grass")
TITLE = "kg-brain memory"


@dataclass(frozen=True)
class Param:
    name: str
    picker: str | None = None  # a cypher/browser statement returning a column called `name`
    literal: str | None = None  # a Cypher expression from the code

    def command(self) -> str:
        if self.picker is not None:
            return f":param [{self.name}] => {{\n{_statement(self.picker)}\n}}"
        return f":param {self.name} => {self.literal}"


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    query: str  # a cypher/browser statement
    params: tuple[Param, ...] = ()


NULL = "NULL"  # not `null`: Neo4j Browser 5 ignores clicks on a command ending in " null"
PROJECT = Param("project", picker="pick_project")
DECAY_CONSTANTS = {"half_life_days": HALF_LIFE_DAYS, "saturation": ACCESS_SATURATION,
                   "w_recency": W_RECENCY, "w_importance": W_IMPORTANCE}
DECAY = Param("decay", literal="({" + ", ".join(f"{k}: {v}" for k, v in DECAY_CONSTANTS.items())
              + "})")
STEPS = (
    Step("A project's overview",
         "The live notes of <code>$project</code>, most recently used first, with the typed links "
         "between them.", "project_overview"),
    Step("A note's neighbourhood",
         "One note and everything within two typed links of it. With <code>$zk_id</code> "
         "null (the first block) it is the project's best-linked note; or type "
         "<code>:param zk_id =&gt; 'ZK-…'</code>.", "note_neighbourhood",
         (Param("zk_id", literal=NULL),)),
    Step("Mistakes and their fixes",
         "Recorded mistakes with the notes that <code>FIXES</code> them (green) and what they "
         "were <code>CAUSED_BY</code> (orange); a mistake alone has no fix yet.",
         "mistakes_with_fixes"),
    Step("The entity map",
         "The services, files, libraries and errors the project's notes mention most: notes "
         "that share an entity are related whatever their wording.", "entity_map"),
    Step("Notes about one entity",
         "One entity and every live note that mentions it. With <code>$entity</code> null it "
         "is the entity most notes mention; or give an entity's key.", "entity_notes",
         (Param("entity", literal=NULL),)),
    Step("What decays next",
         "Permanent, unpinned notes with the lowest decay score (recency halves every "
         f"{HALF_LIFE_DAYS:g} idle days, slower for notes others link to; use counts as "
         "importance). The table view shows the scores.", "decay_next", (DECAY,)),
    Step("A note's revision history",
         "Every kept version of a note (<code>REVISION_OF</code>), oldest first, with why it was "
         "replaced. With <code>$zk_id</code> null it is the project's most revised note.",
         "note_history", (Param("zk_id", literal=NULL),)),
    Step("Clusters",
         "Groups of near-duplicate notes (similarity 0.85 or more), the candidates "
         "<code>consolidate_clusters</code> would merge.", "clusters"),
)


def _statement(name: str) -> str:
    """A saved statement without its header comment (the guide's text says what it does)."""
    lines = query(f"browser/{name}").strip().splitlines()
    return "\n".join(line for line in lines if not line.startswith("//"))


def _block(text: str, **data: str) -> str:
    attrs = "".join(f' data-{key}="{html.escape(value)}"' for key, value in data.items())
    return f'<pre class="runnable"{attrs}>{html.escape(text)}</pre>'


def _slide(title: str, body: str) -> str:
    return (f'<slide class="row-fluid">\n<div class="col-sm-12">\n<h3>{html.escape(title)}</h3>\n'
            f"{body}\n</div>\n</slide>")


def _legend() -> str:
    """Colours as the style sets them, read from the GraSS file itself."""
    rules = re.findall(r"^(node|relationship)\.(\w+) \{[^}]*?color: (#[0-9A-Fa-f]{6});",
                       GRASS.read_text(encoding="utf-8"), flags=re.M)
    items = [f'<span style="color:{colour}">&#9679;</span>&nbsp;{name}'
             for kind, name, colour in rules]
    return "<p>" + " &nbsp; ".join(items) + "</p>"


def _intro() -> str:
    return _slide(TITLE, (
        "<p>Your agents' memory as a graph: <b>notes</b> captioned by title, their kept "
        "<b>revisions</b>, the <b>entities</b> they mention, and typed links coloured by "
        "meaning:</p>\n" + _legend() + "\n"
        "<p>Click &#9654; on a block to run it; click its text to copy it into the editor. "
        "Start by choosing the project: this block picks the one most recently used "
        "(or type <code>:param project =&gt; 'name'</code>).</p>\n"
        + _block(PROJECT.command(), param=PROJECT.name)
        + "\n<p>Then go through the slides.</p>"))


def _step(step: Step) -> str:
    blocks = [_block(p.command(), param=p.name) for p in step.params]
    blocks.append(_block(_statement(step.query), query=f"browser/{step.query}"))
    return _slide(step.title, f"<p>{step.text}</p>\n" + "\n".join(blocks))


def guide_html() -> str:
    slides = "\n".join([_intro(), *(_step(s) for s in STEPS)])
    return (f"<title>{TITLE}</title>\n<article class=\"guide\">\n"
            f"<carousel class=\"deck container-fluid\">\n{slides}\n</carousel>\n</article>\n")


def write_browser_content(folder: Path) -> None:
    """What the content server beside Neo4j serves: the guide and the style."""
    private_dir(folder)
    (folder / GUIDE_FILE).write_text(guide_html(), encoding="utf-8")
    (folder / STYLE_FILE).write_text(GRASS.read_text(encoding="utf-8"), encoding="utf-8")
