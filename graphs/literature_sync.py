"""The literature kept current: NLM's files mirrored into the local index, and what they change heard by the graph.

``sync_index`` runs `amg pubmed sync` (tools/literature/sync.py) against ``AMG_PUBMED_MIRROR`` (or a
given base URL) with the project's one retry policy and politeness (tools/evidence/remote_calls.py: one
request at a time, a User-Agent naming AMG and the NCBI_EMAIL contact). ``apply_changes`` then reads the
index's change journal from where this graph last stopped: a paper PubMed retracted or deleted that the
graph holds is marked so and every relation resting on it weakened (confidence 0, the reason in its
history, nothing deleted); a revised one is queued for the refresh agent to re-read
(graphs/literature_reread.py). Applying a change twice changes nothing, so a run killed anywhere is
completed by the next one.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from amg.graphs.context import Context
from amg.tools.evidence.remote_calls import call_remote, shared_limiter
from amg.tools.kg.records import WITHDRAWN
from amg.tools.kg.store.protocols import LiteratureChanges
from amg.tools.kg.store.rows import Withdrawal
from amg.tools.literature.index import LiteratureIndex, index_exists, index_path
from amg.tools.literature.mirror import Mirror
from amg.tools.literature.sync import SyncProgress, SyncReport, sync

CHANGES_PAGE = 5000  # journal entries read at once: PMIDs looked up in the graph in one query
REQUESTS_PER_S = 3.0  # NCBI's rate for a client without a key; each file is two requests (.md5, .xml.gz)
NOTES = {
    "retracted": "PMID {pmid} was retracted (PubMed marks it Retracted Publication)",
    "deleted": "PMID {pmid} was deleted from PubMed (an update file's DeleteCitation)",
}


def user_agent(ctx: Context) -> str:
    """How AMG names itself to NLM: the program, its version and whom to contact."""
    try:
        release = version("amg")
    except PackageNotFoundError:
        release = "dev"
    contact = f"; mailto:{ctx.ncbi_email}" if ctx.ncbi_email else ""
    return f"AMG/{release} (medical QA; local PubMed mirror{contact})"


def mirror_for(ctx: Context, base_url: str | None = None) -> Mirror:
    """The mirror at ``base_url`` (else ``AMG_PUBMED_MIRROR``), read with retries and at NCBI's pace."""
    base = base_url or ctx.pubmed_mirror
    if base == "off":
        raise ValueError("AMG_PUBMED_MIRROR=off: give the mirror with --base-url URL")
    limiter = shared_limiter("pubmed-mirror", REQUESTS_PER_S)
    return Mirror(
        base, user_agent(ctx), lambda call: call_remote(f"PubMed mirror {base}", call, limiter=limiter, attempts=4)
    )


def sync_index(
    ctx: Context, base_url: str | None = None, *, baseline: bool = False, progress: SyncProgress | None = None
) -> SyncReport:
    """Mirror NLM's files into the local index (the graph hears of their changes in ``apply_to_graph``)."""
    if not baseline and not index_exists(ctx.data_path):
        raise ValueError("no local PubMed index yet: the first sync takes the baseline (`amg pubmed sync --baseline`)")
    mirror = mirror_for(ctx, base_url)
    index = LiteratureIndex(index_path(ctx.data_path))
    try:
        return sync(index, mirror, baseline=baseline, progress=progress)
    finally:
        index.close()


def apply_to_graph(ctx: Context, store: LiteratureChanges) -> dict[str, int]:
    """The local index's changes since the graph last heard of them, applied (``apply_changes``)."""
    if not index_exists(ctx.data_path):
        return {}
    index = LiteratureIndex(index_path(ctx.data_path))
    try:
        return apply_changes(store, index)
    finally:
        index.close()


def apply_changes(store: LiteratureChanges, index: LiteratureIndex) -> dict[str, int]:
    """The index's changes since this graph last read them, applied (see the module docstring)."""
    index.records.backfill_status()  # an index stored before retractions were kept: once
    name = index.records.index_id()
    seq = store.literature_cursor(name)
    totals = {"changes_read": 0, "papers_withdrawn": 0, "relations_weakened": 0, "queued_for_reread": 0}
    while rows := index.records.changes_after(seq, CHANGES_PAGE):
        status = {f"pmid:{pmid}": now for _, pmid, _, now in rows}
        held = store.held_evidence(list(status))
        withdrawn = [
            Withdrawal(id=i, status=change, note=NOTES[change].format(pmid=i.removeprefix("pmid:")))
            for i in held
            if (change := status[i]) in WITHDRAWN
        ]
        done = store.withdraw_evidence(withdrawn)
        queued = store.queue_reread([i for i in held if status[i] is None])
        seq = rows[-1][0]
        store.save_literature_cursor(name, seq)
        totals["changes_read"] += len(rows)
        totals["papers_withdrawn"] += done["evidence"]
        totals["relations_weakened"] += done["relations"]
        totals["queued_for_reread"] += queued
    return totals


def keep_current(res, ctx: Context) -> dict:
    """The refresh agent's literature step, when the data dir has a local index: the update files fetched
    (unless ``AMG_PUBMED_MIRROR=off``), then their changes applied. A fault is noted; the refresh goes on."""
    if res.literature is None:
        return {}
    found: dict = {"notes": []}
    if ctx.pubmed_mirror != "off":
        try:
            found["sync"] = sync(res.literature, mirror_for(ctx), baseline=False).as_dict()
        except (RuntimeError, OSError, ValueError) as exc:  # unreachable, another sync running, a bad listing
            found["notes"].append(f"pubmed sync: {' '.join(str(exc).split())[:200]}")
    found["changes"] = apply_changes(res.store, res.literature)
    return found
