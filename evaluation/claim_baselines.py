"""The claim-checking baselines `amg bench` compares with AMG's claim path, on the same model: cot (the model's own
knowledge, a short chain of thought; no paper) and rag (the top papers' abstracts read whole in one call, no graph,
no per-paper stance). Each returns a verdict, the papers it cites in SciFact's submission form, and its usage."""

from __future__ import annotations

import re

from amg.prompts import load
from amg.tools.literature.claim_search import FoundPaper
from amg.tools.llm.confidence_maps import letter_probabilities
from amg.tools.llm.conversation import TOP_LOGPROBS, talk_scored
from amg.tools.llm.logprobs import TokenLogprob
from amg.tools.llm.structured import Usage

VERDICT_WORDS = {"SUPPORTED": "supported", "CONTRADICTED": "contradicted", "NOT": "not enough evidence"}
COT_TOKENS, RAG_TOKENS, VERDICT_TOKENS = 160, 40, 12
VERDICT_ONLY = "Your verdict, in one line: Verdict: <supported, contradicted or not enough evidence>"
RAG_SENTENCES = 12  # sentences read per abstract (an abstract has ~9; the 4,096-token context holds three)
_VERDICT = re.compile(r"verdict\W*[:=]\s*\W*(supported|contradicted|not enough evidence|not)", re.IGNORECASE)
_PAIR = re.compile(r"(\d+)\s*:\s*(\d+)")


def verdict_of(said: str, logprobs: list[TokenLogprob] | None) -> tuple[str | None, dict[str, float]]:
    """(the verdict the reply names, its probabilities at the verdict's word where the endpoint gave them)."""
    found = [m.group(1).lower() for m in _VERDICT.finditer(said)]
    verdict = ("not enough evidence" if found[-1].startswith("not") else found[-1]) if found else None
    text, probabilities = "", {}
    for step in logprobs or []:
        if re.search(r"verdict\W*[:=]\s*\**\s*$", text, re.IGNORECASE) and step.get("token", "").strip(" :*`"):
            probabilities = letter_probabilities([step], list(VERDICT_WORDS.values()), VERDICT_WORDS) or {}
        text += step.get("token", "")
    return verdict, probabilities


def chain_of_thought(claim: str, llm) -> dict:
    usage = Usage()
    said, turns, logprobs = talk_scored(
        llm,
        [],
        text=load("claim_verdict_cot").format(claim=claim),
        usage=usage,
        max_tokens=COT_TOKENS,
        top_logprobs=TOP_LOGPROBS,
    )
    verdict, probabilities = verdict_of(said, logprobs)
    if verdict is None and said:  # the reasoning ran past its budget before the verdict line: ask for that line
        said, _, logprobs = talk_scored(
            llm, turns, text=VERDICT_ONLY, usage=usage, max_tokens=VERDICT_TOKENS, top_logprobs=TOP_LOGPROBS
        )
        verdict, probabilities = verdict_of(said, logprobs)
    return {"verdict": verdict, "probabilities": probabilities, "evidence": {}, "retrieved": [], **usage.as_update()}


def retrieval(claim: str, found: list[FoundPaper], llm) -> dict:
    """Read the papers ``found`` whole (their first ``RAG_SENTENCES`` sentences) and answer once; the papers the
    reply names take the verdict's label, with the sentences it names."""
    usage = Usage()
    blocks = []
    for number, paper in enumerate(found, 1):
        sentences = paper.article.numbered()[:RAG_SENTENCES]
        lines = "\n".join(f"{number}:{i} {s}" for i, s in enumerate(sentences))
        blocks.append(f"[{number}] {paper.article.display_title}\n{lines}")
    prompt = load("claim_verdict_rag").format(claim=claim, papers="\n\n".join(blocks) or "(none)")
    said, _, logprobs = talk_scored(llm, [], text=prompt, usage=usage, max_tokens=RAG_TOKENS, top_logprobs=TOP_LOGPROBS)
    verdict, probabilities = verdict_of(said, logprobs)
    label = {"supported": "SUPPORT", "contradicted": "CONTRADICT"}.get(verdict or "")
    evidence: dict[str, dict] = {}
    line = next((x for x in said.splitlines() if x.lower().lstrip("*").startswith("evidence")), "")
    for paper_n, sentence in _PAIR.findall(line):
        p, s = int(paper_n), int(sentence)
        if label and 1 <= p <= len(found) and s < len(found[p - 1].article.numbered()):
            entry = evidence.setdefault(found[p - 1].article.evidence_id, {"sentences": [], "label": label})
            if s not in entry["sentences"]:
                entry["sentences"].append(s)
    return {
        "verdict": verdict,
        "probabilities": probabilities,
        "evidence": evidence,
        "retrieved": [p.article.evidence_id for p in found],
        **usage.as_update(),
    }
