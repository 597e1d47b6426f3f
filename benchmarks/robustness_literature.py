"""The campaign's literature probes: crafted files for `amg ingest pubmed`, kill -9 during a large ingest then
the same ingest again, and two ingests at once into one index; then `amg pubmed sync`'s faults
(benchmarks/robustness_sync.py). A record is half-written when the full-text engine and the record store
disagree about it once every ingest has ended."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

from amg.tools.literature.index import LiteratureIndex, index_path
from benchmarks.robustness_runs import Amg, Run, Tally, folder_size, once
from benchmarks.robustness_sync import sync_probe

ARTICLE = (
    '<PubmedArticle><MedlineCitation><PMID Version="1">{pmid}</PMID><Article><ArticleTitle>{title}'
    "</ArticleTitle><Abstract><AbstractText>Metformin lowers blood glucose.</AbstractText></Abstract>"
    "</Article></MedlineCitation></PubmedArticle>"
)
SECRET_FILE_TEXT = "robustness-local-file-must-never-be-read"


def _xml(body: str, doctype: str = "") -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?>{doctype}<PubmedArticleSet>{body}</PubmedArticleSet>'


def crafted_files(work: Path) -> dict[str, bytes]:
    """Files an ingest must refuse or read partly, each with one kind of damage or hostility."""
    (work / "local-secret.txt").write_text(SECRET_FILE_TEXT)
    laughs = (
        '<!DOCTYPE lolz [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        + "".join(f'<!ENTITY {c} "{("&" + p + ";") * 10}">' for p, c in zip("bcdefgh", "cdefghi"))
        + "]>"
    )
    external = f'<!DOCTYPE a [<!ENTITY leak SYSTEM "file://{work / "local-secret.txt"}">]>'
    good = _xml(ARTICLE.format(pmid=90000001, title="Metformin first line"))
    return {
        "billion-laughs.xml": _xml(ARTICLE.format(pmid=90000002, title="&i;"), laughs).encode(),
        "external-entity.xml": _xml(ARTICLE.format(pmid=90000003, title="&leak;"), external).encode(),
        "truncated.xml.gz": gzip.compress(good.encode() * 3)[:-30],
        "malformed.xml": good.replace("</ArticleTitle>", "</Title>").encode(),
        "not-utf8.xml": good.replace("Metformin first", "Metformin \xff\xfe first").encode("latin-1"),
        "not-utf8.jsonl": b'{"pmid": "90000004", "title": "caf\xe9 \xff"}\n{"pmid": "90000005", "title": "ok"}\n',
        "not-pubmed.xml": b'<?xml version="1.0"?><graphml><graph id="g"/></graphml>',
        "not-pubmed.bin": bytes(random.Random(5).randrange(256) for _ in range(4096)),
    }


def synthetic_jsonl(path: Path, first: int, count: int) -> Path:
    """``count`` records with PMIDs from ``first``, in PubMedQA's corpus format."""
    with open(path, "w") as out:
        for pmid in range(first, first + count):
            row = {
                "pmid": str(pmid),
                "year": 2000 + pmid % 25,
                "mesh": ["Metformin"],
                "sections": [{"label": "CONCLUSION", "text": f"Record {pmid}: metformin lowers glucose."}],
            }
            out.write(json.dumps(row) + "\n")
    return path


def index_counts(data: Path) -> tuple[int, int]:
    """(records held, records the full-text engine finds)."""
    index = LiteratureIndex(index_path(data))
    try:
        return index.records.stats()["records"], index.fulltext.count()
    finally:
        index.close()


def _finished(run: Run, codes: tuple[int, ...] = (0,)) -> bool:
    return run.tracebacks == 0 and run.code in codes and not run.killed


def literature_probe(amg: Amg, data: Path, work: Path, rng: random.Random, records: int, one_run: bool) -> dict:
    """``one_run`` (the short form): every crafted file in one ingest, rather than an ingest each."""
    tallies = {name: Tally() for name in ("crafted literature files", "kill -9 ingest pubmed", "2 ingests at once")}
    crafted, files = tallies["crafted literature files"], crafted_files(work)
    for name, content in files.items():
        (work / name).write_bytes(content)
    for names in [list(files)] if one_run else [[name] for name in files]:
        paths = [str(work / name) for name in names]
        run = amg.run(["ingest", "pubmed", *paths], data)  # exit 1: a file not read to its end
        leaked = SECRET_FILE_TEXT in run.out + run.err
        for n, name in enumerate(names):
            crafted.add(
                _finished(run, (0, 1)) and not leaked,
                f"{name} -> {run.code}: {run.err[-200:]}",
                run.tracebacks if n == 0 else 0,
            )
    held, found = index_counts(data)
    half_written = abs(held - found)
    crafted.add(held <= 3, f"{held} records held from crafted files")  # at most the few valid articles in them

    big = synthetic_jsonl(work / "big.jsonl", 10_000_000, records)
    size = folder_size(index_path(data))
    first_batch = once(lambda: folder_size(index_path(data)) > size, rng.uniform(0.0, 1.0))
    killed = amg.run(["ingest", "pubmed", str(big)], data, kill_when=first_batch)
    resumed = amg.run(["ingest", "pubmed", str(big)], data)
    after, found = index_counts(data)
    half_written += abs(after - found)
    tallies["kill -9 ingest pubmed"].add(
        killed.killed and _finished(resumed) and after == held + records,
        f"killed={killed.killed}, {after - held} of {records} held: {resumed.err[-200:]}",
        killed.tracebacks + resumed.tracebacks,
        lost=abs(held + records - after),
    )

    halves = [synthetic_jsonl(work / f"half-{n}.jsonl", 20_000_000 + n * records, records // 2) for n in (0, 1)]
    runs = amg.run_together([["ingest", "pubmed", str(path)] for path in halves], data)
    final, found = index_counts(data)
    half_written += abs(final - found)
    expected = after + 2 * (records // 2)
    for run in runs:
        tallies["2 ingests at once"].add(_finished(run), f"{run.code}: {run.err[-200:]}", run.tracebacks)
    tallies["2 ingests at once"].lost += abs(expected - final)
    synced = sync_probe(amg, work, rng, records)
    tallies.update(synced["tallies"])
    return {"tallies": tallies, "half_written_records": half_written + synced["half_written_records"]}
