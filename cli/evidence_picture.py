"""A self-contained HTML picture of an answer's evidence subgraph (inline SVG, no scripts)."""

from __future__ import annotations

import html
import math
from pathlib import Path

COLORS = {"disease": "#d9534f", "drug": "#337ab7", "phenotype": "#f0ad4e", "gene": "#5cb85c",
          "procedure": "#8e44ad", "anatomy": "#7f8c8d", "test": "#16a085", "organism": "#a0522d"}  # fmt: skip


def _layout(nodes: list[dict], size: int) -> dict[str, tuple[float, float]]:
    """Question entities in the middle ring, each further hop on a wider ring."""
    rings: dict[int, list[dict]] = {}
    for node in nodes:
        rings.setdefault(node["depth"], []).append(node)
    centre, positions = size / 2, {}
    for depth, members in rings.items():
        radius = 0 if depth == 0 and len(members) == 1 else 60 + depth * (size / 2 - 90) / max(max(rings), 1)
        for i, node in enumerate(sorted(members, key=lambda n: n["name"])):
            angle = 2 * math.pi * i / len(members) + depth * 0.4
            positions[node["key"]] = (centre + radius * math.cos(angle), centre + radius * math.sin(angle))
    return positions


def render(result: dict, size: int = 760) -> str:
    nodes = result.get("subgraph", {}).get("nodes", [])
    pos = _layout(nodes, size)
    by_name = {n["name"]: n["key"] for n in nodes}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" font-family="sans-serif">']
    drawn = set()
    for node in nodes:
        for step in node["steps"]:
            a, b = by_name.get(step["source"]), by_name.get(step["target"])
            if a in pos and b in pos and (a, b) not in drawn:
                drawn.add((a, b))
                (x1, y1), (x2, y2) = pos[a], pos[b]
                label = html.escape(f"{step['relation']} {step['confidence']:.2f}")
                parts.append(f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" stroke="#999" '
                             f'stroke-width="{1 + 3 * step["confidence"]:.1f}"/>'
                             f'<text x="{(x1 + x2) / 2:.0f}" y="{(y1 + y2) / 2:.0f}" font-size="9" fill="#555">{label}</text>')  # fmt: skip
    for node in nodes:
        x, y = pos[node["key"]]
        color = COLORS.get(node["type"], "#95a5a6")
        name = html.escape(node["name"][:40])
        parts.append(f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{14 if node["depth"] == 0 else 9}" fill="{color}">'
                     f'<title>{html.escape(node["path"])}</title></circle>'
                     f'<text x="{x + 12:.0f}" y="{y - 10:.0f}" font-size="11">{name} ({node["score"]:.2f})</text>')  # fmt: skip
    parts.append("</svg>")
    cites = "".join(
        f'<li>[{c["n"]}] {html.escape(str(c.get("title") or c["evidence_id"]))} '
        f'{html.escape(str(c.get("year") or ""))} <a href="{html.escape(c.get("url") or "")}">{html.escape(c.get("pmid") or c.get("url") or "")}</a></li>'
        for c in result.get("citations", [])
    )  # fmt: skip
    return (
        "<!doctype html><meta charset='utf-8'><title>AMG evidence subgraph</title>"
        f"<h2>{html.escape(result.get('question', ''))}</h2>"
        f"<p><b>{html.escape(result.get('answer', ''))}</b> (confidence {result.get('confidence', 0):.2f})</p>"
        + "".join(parts) + f"<h3>Cited evidence</h3><ol style='list-style:none'>{cites or '<li>none</li>'}</ol>"
        "<p><small>Edge width and labels show relation confidence; hover a node for its best path. "
        "Not medical advice.</small></p>"
    )


def write_picture(result: dict, path: Path) -> None:
    path.write_text(render(result), encoding="utf-8")
