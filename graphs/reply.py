"""The QA result as a chat message (Studio, `amg chat`, `amg ask`)."""

from __future__ import annotations

from amg.tools.literature.paper_ids import label, scheme_of

DISCLAIMER = "AMG is a research tool: this is not medical advice."
UNCALIBRATED = " (uncalibrated: no measured map for this model and kind of question)"


def _levels(candidate: dict) -> str:
    """The leading diagnosis at three levels: category (ICD-10 chapter), subcategory (block), disease."""
    levels = candidate.get("levels") or {}
    if not (levels.get("category") or levels.get("subcategory")):
        return ""
    said = [x for x in (levels.get("category"), levels.get("subcategory"), candidate["name"]) if x]
    return (
        "Leading diagnosis by level: "
        + " > ".join(said)
        + (f" (ICD-10 {levels['code']})" if levels.get("code") else "")
    )


def chat_reply(result: dict) -> str:
    """The answer as shown in chat and on the terminal."""
    lines = [*(f"Note: {n}" for n in result.get("notices", [])), result.get("answer", "")]
    uncalibrated = result.get("confidence_basis", {}).get("calibrated") is False
    lines.append(f"Confidence: {result.get('confidence', 0.0):.2f}" + (UNCALIBRATED if uncalibrated else ""))
    if result.get("rationale"):
        lines.append(f"Why: {result['rationale']}")
    for c in result.get("citations", []):
        paper = scheme_of(c.get("id") or "")  # a paper: its id in its scheme, then the link of that scheme
        where = f"PMID {c['pmid']}" if c.get("pmid") else label(c["id"]) if paper else (c.get("url") or c.get("id"))
        year = f", {c['year']}" if c.get("year") else ""
        link = f" {c['url']}" if paper and c.get("url") else ""
        mark = f"{c['status'].upper()}: " if c.get("status") else ""  # PubMed withdrew it: shown, not relied on
        stance = f" {c['stance']} the claim" if c.get("stance") else ""
        lines.append(f"[{c['n']}] {mark}{c.get('title') or c['id']} ({where}{year}){link}{stance}")
        for said in c.get("sentences") or []:  # a claim's paper: each settling sentence by its number
            lines.append(f'    sentence {said["n"]}: "{said["text"]}"')
        if c.get("quote") and not c.get("sentences"):
            lines.append(f'    "{c["quote"]}"')
    unsettled = [p for p in result.get("papers") or [] if p.get("stance") == "neither"]
    if unsettled:
        lines.append("Also read, not settling the claim: " + "; ".join(f"{label(p['id'])}" for p in unsettled))
    if result.get("confidence_basis", {}).get("rests_on"):
        lines.append(f"Rests on {result['confidence_basis']['rests_on']}.")
    if result.get("differential"):
        both = bool(result.get("similar")) and not result.get("records_differential")
        lines.append(
            ("Differential (HPO annotations and your patients): " if both else "Differential (HPO annotations): ")
            + "; ".join(f"{c['name']} {c['probability']:.2f}" for c in result["differential"][:3])
        )
        lines.append(_levels(result["differential"][0]))
    if result.get("records_differential"):
        lines.append(
            "With your patients (not sent to the model): "
            + "; ".join(f"{c['name']} {c['probability']:.2f}" for c in result["records_differential"][:3])
        )
    for p in result.get("similar", []):
        shared = f"; shares {', '.join(p['shared'][:5])}" if p.get("shared") else ""
        against = f"; contradicts {', '.join(p['contradicted'][:3])}" if p.get("contradicted") else ""
        lines.append(
            f"Similar patient {p['id']}: {', '.join(p['diagnoses']) or 'no diagnosis'} "
            f"(similarity {p['similarity']:.2f}{shared}{against})"
        )
    for item in result.get("follow_up", []):
        lines.append(f"To tell them apart: {item['question']}")
    if result.get("glossary"):
        lines.append("Glossary:")
    for term in result.get("glossary", [])[:6]:
        definition = term["definition"] if len(term["definition"]) <= 160 else term["definition"][:157] + "..."
        lines.append(f"  {term['term']}: {definition} ({term['source']}{', ' + term['ids'][0] if term['ids'] else ''})")
    for d in result.get("degradations", []):
        lines.append(f"(degraded: {d})")
    lines.append(DISCLAIMER)
    return "\n".join(line for line in lines if line)
