"""The evidence picture (`amg ask --graph FILE.html`): the paths an answer rests on, laid out by Graphviz.

Only what the answer rests on is drawn: the edges between question entities, for a diagnostic
question the findings behind the three leading candidates of the differential, every path behind
a cited evidence item and the paths to what the answer names (each question entity's best-ranked
paths instead when the answer names nothing in the graph), and what the cited evidence taught the
graph about what the answer names; left to right from the question's entities to the answer, joined to
the nodes the answer names. Edges are coloured by origin (curated vocabulary, or
extracted by a model from literature) and drawn thicker the more confident they are. Graphviz
(`dot`, Debian/Ubuntu package `graphviz`) does the layout, so labels never overlap; the SVG is
inlined and scales to the window, so the page works offline. Citations (PMID/DOI links, each with the
sentence it is cited for) and the glossary follow. A paper PubMed retracted or deleted is named so, in the
citations and on the edges resting on it (red, dashed). Without Graphviz the paths are listed as text, with a hint.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

from amg.agents.finding_reader.reader import FINDING_NAMES
from amg.agents.reasoner import shown_paths
from amg.cli.answer_format import pmids
from amg.tools.kg.pipeline_types import Step, withdrawn
from amg.tools.kg.schema import normalize_key
from amg.tools.literature.paper_ids import label as paper_label
from amg.tools.literature.paper_ids import link, scheme_of

CURATED, EXTRACTED, ANSWER = "#2b6cb0", "#dd6b20", "#2f855a"
WITHDRAWN_COLOUR = "#c53030"  # an edge resting on a paper PubMed retracted or deleted: dashed, named so
STYLE = """body{font-family:sans-serif;margin:16px;max-width:1240px}svg{max-width:100%;max-height:70vh;
height:auto;width:auto;display:block;margin:8px 0}.legend span{margin-right:18px}small{color:#555}
.quote{color:#333;font-style:italic}.withdrawn{color:#c53030}"""


def rested_on(result: dict, per_entity: int = 2, candidates: int = 3) -> list[list[Step]]:
    """The step lists the answer rests on: links, the differential's findings, paths behind cited evidence
    and paths to what the answer names; the best-ranked paths only when none of these say more."""
    subgraph = result.get("subgraph", {})
    cited = {c.get("evidence_id") for c in result.get("citations", [])}
    chosen = [[link] for link in subgraph.get("links", [])[:8]]
    differential = result.get("differential", [])[:candidates]
    for c in differential:
        chosen += [
            [_step(name, "symptom_of", target=c["name"], confidence=0.4 + 0.6 * p, evidence_ids=["vocab:hpoa"])]
            for name, p in c.get("frequencies", {}).items()
        ]
    by_seed = result.get("shown") or shown_paths(subgraph.get("nodes", []))  # chosen once by the graph's traversal
    shown = [node for paths in by_seed.values() for node in paths]
    backed = [n["steps"] for n in shown if any(i in cited for s in n["steps"] for i in s["evidence_ids"])]
    said = f" {normalize_key(result.get('answer') or '')} "
    named = [n for n in subgraph.get("nodes", []) if n["depth"] > 0 and f" {normalize_key(n['name'])} " in said]
    named_paths = [n["steps"] for n in sorted(named, key=lambda n: -n["score"])[: per_entity * 2]]
    if not (differential or named_paths):
        chosen += [n["steps"] for n in shown if n["rank"] < per_entity]
    drawn = {
        frozenset((normalize_key(s["source"]), normalize_key(s["target"])))
        for steps in chosen + backed + named_paths
        for s in steps
    }
    return chosen + backed + named_paths + learned_from_citations(result, cited, said=said, drawn=drawn)


def learned_from_citations(result: dict, cited: set, *, said: str, drawn: set) -> list[list[Step]]:
    """Relations this question's cited evidence taught the graph (after the answer, by default) that join
    something the answer names, each once (not when a path already joins the same two nodes)."""
    learned = []
    for r in result.get("new_relations", []):
        pair = frozenset((normalize_key(r["source"]), normalize_key(r["target"])))
        names = any(f" {end} " in said for end in pair)
        if pair not in drawn and names and cited.intersection(r["evidence_ids"]):
            drawn.add(pair)
            learned.append(
                [
                    _step(
                        r["source"],
                        r["type"],
                        target=r["target"],
                        confidence=r["confidence"],
                        evidence_ids=r["evidence_ids"],
                    )
                ]
            )
    return learned


def _step(source: str, relation: str, *, target: str, confidence: float, evidence_ids: list[str]) -> Step:
    return Step(
        source=source,
        relation=relation,
        target=target,
        confidence=confidence,
        evidence_ids=evidence_ids,
        forward=True,
        description="",
    )


def to_dot(result: dict, paths: list[list[Step]]) -> str:
    """Graphviz source: question entities first, then left to right; the answer as a box on the right."""
    ids: dict[str, str] = {}  # by entity key: "metformin" and "Metformin" are one node, named as first drawn
    seeds = {normalize_key(n["name"]) for n in result.get("subgraph", {}).get("nodes", []) if n["depth"] == 0}
    lines = [
        "digraph evidence {",
        "rankdir=LR; nodesep=0.35; ranksep=0.9;",
        'node [shape=box style="rounded,filled" fillcolor="#f7fafc" fontname="Helvetica" fontsize=12];',
        'edge [fontname="Helvetica" fontsize=10];',
    ]

    def node(name: str) -> str:
        key = normalize_key(name)
        if key not in ids:
            ids[key] = f"n{len(ids)}"
            fill = ' fillcolor="#fefcbf" penwidth=2' if key in seeds else ""
            lines.append(f'{ids[key]} [label="{_dot(_wrap(name))}"{fill}];')
        return ids[key]

    gone = {e["id"]: e["status"] for e in result.get("evidence_index", []) if withdrawn(e)}
    drawn = set()
    for steps in paths:
        for s in steps:
            a, b, relation = node(s["source"]), node(s["target"]), s["relation"]  # as travelled: away from the question
            if (a, b, relation) in drawn:
                continue
            drawn.add((a, b, relation))
            curated = any(i.startswith("vocab:") for i in s["evidence_ids"])
            colour = CURATED if curated else EXTRACTED
            status = next((gone[i] for i in s["evidence_ids"] if i in gone), None)
            colour, label = (WITHDRAWN_COLOUR, f" ({status})") if status else (colour, "")
            lines.append(
                f'{a} -> {b} [label="{_dot(relation.replace("_", " "))} {s["confidence"]:.2f}{label}" '
                f'color="{colour}" fontcolor="{colour}" penwidth={0.8 + 3 * s["confidence"]:.1f}'
                + (" style=dashed" if status else "")
                + "];"
            )
    answer = result.get("answer") or ""
    if answer:
        lines.append(
            f'answer [label="{_dot(_wrap("Answer: " + answer, 30))}" shape=box fillcolor="#c6f6d5" color="{ANSWER}"];'
        )
        option_text = (result.get("options") or {}).get(result.get("option") or "", "")
        said = f" {normalize_key(option_text or answer)} "
        for key, ident in ids.items():
            if f" {key} " in said:  # the answer names this node
                lines.append(f'{ident} -> answer [style=dashed color="{ANSWER}"];')
    return "\n".join(lines + ["}"])


def _wrap(text: str, width: int = 24) -> str:
    words, lines = text.split(), [""]
    for word in words:
        lines[-1:] = [lines[-1] + " " + word] if len(lines[-1]) + len(word) < width else [lines[-1], word]
    return "\n".join(line.strip() for line in lines if line.strip())[:200]


def _dot(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def svg(dot_source: str) -> str | None:
    """The layout as inline SVG, or None when Graphviz is not installed."""
    if shutil.which("dot") is None:
        return None
    drawn = subprocess.run(["dot", "-Tsvg"], input=dot_source, capture_output=True, text=True, timeout=30, check=True)
    body = drawn.stdout[drawn.stdout.index("<svg") :]
    return re.sub(r'<svg width="[^"]*" height="[^"]*"', "<svg", body, count=1)


def render(result: dict) -> str:
    """The whole page: question, answer, picture (or the paths as text), legend, citations, glossary."""
    paths = rested_on(result)
    drawing = svg(to_dot(result, paths)) if paths else None
    if drawing is None:
        listed = "".join(f"<li>{html.escape(_path_text(p))}</li>" for p in paths) or "<li>none</li>"
        hint = "" if paths else " (the graph held no paths for this question)"
        drawing = (
            f"<p><small>Paths the answer rests on{hint}. Install Graphviz (package <code>graphviz</code>) "
            f"for the drawing.</small></p><ul>{listed}</ul>"
        )
    cites = "".join(
        f"<li>[{c['n']}] "
        + (f"<b class='withdrawn'>{html.escape(c['status'].upper())}</b> " if c.get("status") else "")
        + f"{html.escape(str(c.get('title') or c.get('evidence_id')))} "
        f"{html.escape(str(c.get('year') or ''))} {_link(c)}"
        + (f"<br><q class='quote'>{html.escape(c['quote'])}</q>" if c.get("quote") else "")
        + "</li>"
        for c in result.get("citations", [])
    )
    rests_on = result.get("confidence_basis", {}).get("rests_on")
    terms = "".join(
        f"<dt><b>{html.escape(t['term'])}</b> <small>({html.escape(t['source'])}"
        f"{', ' + html.escape(t['ids'][0]) if t.get('ids') else ''})</small></dt>"
        f"<dd>{html.escape(t['definition'])}</dd>"
        for t in result.get("glossary", [])
    )
    differential = "".join(
        f"<li>{html.escape(c['name'])} {c['probability']:.2f} <small>(has "
        f"{html.escape(', '.join(c['present']) or '-')})</small></li>"
        for c in result.get("differential", [])
    )
    follow = "".join(f"<li>{html.escape(f['question'])}</li>" for f in result.get("follow_up", []))
    findings = "".join(
        f"<li><b>{html.escape(f'{x[0]} {x[1].replace(chr(95), chr(32))} {x[2]}')}</b>: "
        f"{html.escape(x[3])} {' '.join(_link({'pmid': p}) for p in x[4])}</li>"
        for x in study_findings(result)
    )
    return (
        f"<!doctype html><html lang='en'><meta charset='utf-8'><title>AMG evidence</title><style>{STYLE}</style>"
        f"<h2>{html.escape(result.get('question', ''))}</h2>"
        f"<p><b>{html.escape(result.get('answer', ''))}</b> (confidence {result.get('confidence', 0):.2f})</p>"
        + (f"<p id='rests-on'><small>Rests on {html.escape(rests_on)}.</small></p>" if rests_on else "")
        + f"<div id='picture'>{drawing}</div>"
        f"<p class='legend'><small><span style='color:{CURATED}'>&#9632; curated vocabulary</span>"
        f"<span style='color:{EXTRACTED}'>&#9632; extracted by a model from literature</span>"
        "<span>thicker = more confident; yellow = question entity</span></small></p>"
        + (f"<h3>Differential (HPO annotations)</h3><ol>{differential}</ol>" if differential else "")
        + (f"<h3>To tell them apart, ask</h3><ul>{follow}</ul>" if follow else "")
        + (f"<h3>What the studies found</h3><ul>{findings}</ul>" if findings else "")
        + f"<h3>Cited evidence</h3><ol style='list-style:none;padding:0'>{cites or '<li>none</li>'}</ol>"
        + (f"<h3>Glossary</h3><dl>{terms}</dl>" if terms else "")
        + "<p><small>AMG is a research tool: this is not medical advice.</small></p></html>"
    )


def study_findings(result: dict) -> list[tuple[str, str, str, str, list[str]]]:
    """(subject, relation, object, sentence and population, PMIDs) of each study finding the answer learned
    or rests on, once each."""
    steps = [
        *result.get("new_relations", []),
        *result.get("subgraph", {}).get("links", []),
        *(s for n in result.get("subgraph", {}).get("nodes", []) if not n["hidden"] for s in n["steps"]),
    ]
    found: dict[tuple[str, str, str], tuple[str, list[str]]] = {}
    for s in steps:
        relation = s.get("type") or s.get("relation")
        if relation in FINDING_NAMES and s.get("description"):
            found.setdefault((s["source"], relation, s["target"]), (s["description"], pmids(s["evidence_ids"])))
    return [(*key, *value) for key, value in found.items()]


def _path_text(steps: list[Step]) -> str:
    text = steps[0]["source"] if steps else ""
    return text + "".join(f" -{s['relation']}({s['confidence']:.2f})-> {s['target']}" for s in steps)


def _link(citation: dict) -> str:
    if citation.get("pmid"):
        url, label = f"https://pubmed.ncbi.nlm.nih.gov/{citation['pmid']}/", f"PMID {citation['pmid']}"
    elif citation.get("doi"):
        url, label = f"https://doi.org/{citation['doi']}", f"doi:{citation['doi']}"
    elif scheme_of(citation.get("id") or ""):  # a paper of another scheme (an S2ORC corpus id)
        url, label = link(citation["id"]), paper_label(citation["id"])
    else:
        url, label = citation.get("url") or "", citation.get("url") or ""
        if url.startswith("file://") and not url.startswith("file:///"):
            return ""  # a relative path kept by an older ingest: no link a browser could open
    return f'<a href="{html.escape(url)}">{html.escape(label)}</a>' if url else ""


def write_picture(result: dict, path: Path) -> None:
    path.write_text(render(result), encoding="utf-8")
