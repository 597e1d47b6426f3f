"""The evidence picture as a person sees it: rendered by headless Chromium at 1280x800."""

from __future__ import annotations

import json
import re
import subprocess

from amg.cli.evidence_picture import render, rested_on, to_dot
from tests.unit.test_evidence_picture import RESULT

PROBE = """<script>
const box = e => e.getBoundingClientRect();
const labels = [...document.querySelectorAll('#picture svg g.node text')];
const outside = labels.filter(t => { const r = box(t);
  return r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight; });
const rects = [...document.querySelectorAll('#picture svg g.node, #picture svg g.edge text')].map(box);
let overlaps = 0;
for (let i = 0; i < rects.length; i++) for (let j = i + 1; j < rects.length; j++) {
  const a = rects[i], b = rects[j];
  if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) overlaps++; }
document.body.insertAdjacentHTML('beforeend', `<pre id="probe">${JSON.stringify({labels: labels.map(t => t.textContent),
  outside: outside.length, overlaps})}</pre>`);
</script>"""


def rendered(tmp_path, page: str) -> dict:
    path = tmp_path / "page.html"
    path.write_text(page.replace("</html>", PROBE + "</html>"), encoding="utf-8")
    dom = subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1280,800",
            "--virtual-time-budget=3000",
            "--dump-dom",
            path.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    return json.loads(re.findall(r'<pre id="probe">(.*?)</pre>', dom, re.S)[-1])


def test_picture_shows_the_answer_paths_readably(tmp_path):
    seen = rendered(tmp_path, render(RESULT))
    text = " ".join(seen["labels"])
    for name in ("Metformin", "Diarrhea", "Type 2 diabetes", "Answer: B."):
        assert name in text
    assert "unrelated neighbour" not in text and "Biguanide" not in text, "only what the answer rests on"
    assert seen["outside"] == 0 and seen["overlaps"] == 0, "no label off the page, no two nodes or edge labels overlap"


def test_page_lists_citations_with_links_the_glossary_and_the_differential():
    page = render(
        {
            **RESULT,
            "differential": [{"name": "Fabry disease", "probability": 0.33, "present": ["Hypohidrosis"]}],
            "follow_up": [{"question": "Is there angiokeratoma?"}],
        }
    )
    assert "Fabry disease 0.33" in page and "Is there angiokeratoma?" in page
    assert 'href="https://pubmed.ncbi.nlm.nih.gov/31000001/"' in page
    assert "Abnormally increased frequency of loose stools." in page and "HP:0002014" in page


def test_a_diagnosis_shows_the_findings_behind_the_leading_candidates_joined_to_the_answer(tmp_path):
    differential = [
        {
            "name": "Marfan syndrome",
            "probability": 0.6,
            "present": ["Arachnodactyly", "Ectopia lentis"],
            "frequencies": {"Arachnodactyly": 0.63, "Ectopia lentis": 0.47},
        },
        {
            "name": "Marfan lipodystrophy syndrome",
            "probability": 0.26,
            "present": ["Arachnodactyly"],
            "frequencies": {"Arachnodactyly": 0.67},
        },
    ]
    case = {
        **RESULT,
        "question": "Arachnodactyly and ectopia lentis: what is it?",
        "answer": "Marfan syndrome.",
        "option": None,
        "options": {},
        "differential": differential,
    }
    drawn = {(s["source"], s["target"]) for steps in rested_on(case) for s in steps}
    assert {
        ("Arachnodactyly", "Marfan syndrome"),
        ("Ectopia lentis", "Marfan syndrome"),
        ("Arachnodactyly", "Marfan lipodystrophy syndrome"),
    } <= drawn
    assert ("Metformin", "Biguanide") not in drawn, "the differential, not the question words' neighbours"
    dot = to_dot(case, rested_on(case))
    marfan = re.search(r'(n\d+) \[label="Marfan syndrome"', dot).group(1)
    assert f"{marfan} -> answer [style=dashed" in dot, "the answer is joined to the node it names"
    seen = rendered(tmp_path, render(case))
    assert "Marfan lipodystrophy" in " ".join(seen["labels"]) and seen["outside"] == 0 and seen["overlaps"] == 0
