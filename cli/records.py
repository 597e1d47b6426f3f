"""`amg records`: a clinician's own patients, kept on this machine (docs/records.md)."""

from __future__ import annotations

import json
from pathlib import Path

from amg.cli.terminal import json_printable, printable
from amg.graphs.context import Context
from amg.graphs.resources import Resources, resources_for

MAX_CASE_CHARS = 4000


def run(args, context: Context) -> int:
    command = args.records_command
    if command == "similar":
        _check_case(args)
    res = resources_for(context)
    try:
        if command == "ingest":
            return _ingest(args, res)
        if command == "list":
            return _list(args, res)
        if command == "show":
            return _show(args, res)
        if command == "delete":
            return _delete(args, res)
        return _similar(args, res)
    finally:
        res.close()


def _check_case(args) -> None:
    """A case to compare is text or a stored record's id, refused at once when it is neither."""
    text = (args.case or "").strip()
    if bool(text) == bool(args.record):
        raise ValueError('give a case as text ("fever, rash and joint pain") or --record ID, not both and not neither')
    if len(text) > MAX_CASE_CHARS:
        raise ValueError(f"the case is {len(text):,} characters; at most {MAX_CASE_CHARS:,}")


def _store(res: Resources, create: bool = False):
    from amg.tools.records.store import RecordStore

    if res.records is None and create:
        return RecordStore(res.context.data_path / "records")
    return res.records


def _ingest(args, res: Resources) -> int:
    report = ingest_files([Path(p) for p in args.paths], res)
    return 1 if report.refused and not report.stored else 0


def ingest_files(paths: list[Path], res: Resources, quiet: bool = False):
    """Ingest record files into ``res``'s graph and record store, saying what was stored, refused and warned."""
    from tqdm import tqdm

    from amg.tools.phenotypes.lexicon import hpo_lexicon
    from amg.tools.phenotypes.recognizer import recognise
    from amg.tools.records.ddxplus_records import reader_beside
    from amg.tools.records.formats import FindingNames
    from amg.tools.records.ingest import ingest

    records = _store(res, create=True)
    names = FindingNames(hpo_lexicon(), recognise)
    with tqdm(desc="ingesting records", unit=" records", leave=False, disable=None) as bar:
        report = ingest(
            paths,
            records=records,
            graph=res.store,
            names=names,
            ddxplus_for=lambda path: reader_beside(path, names, res.store),
            progress=bar.update,
        )
    res.__dict__.pop("records", None)  # opened again with what was just stored
    print(
        f"stored {report.stored:,} patient(s) from {report.files} file(s) in {report.seconds:.1f} s "
        f"({report.per_second:,.0f}/s); {len(report.refused)} refused; {records.count():,} stored in all"
    )
    shown = 3 if quiet else 20
    for problem in report.refused[:shown]:
        print(printable(f"  refused {problem}"))
    if len(report.refused) > shown:
        print(f"  ... and {len(report.refused) - shown} more refused")
    for warning in report.warnings[: shown // 2]:
        print(printable(f"  warning: {warning}"))
    if len(report.warnings) > shown // 2:
        print(f"  ... and {len(report.warnings) - shown // 2} more warnings")
    return report


def _list(args, res: Resources) -> int:
    records = _store(res)
    summaries = records.summaries(args.limit, args.offset) if records else []
    if args.json:
        rows = [
            {
                "id": s.id,
                "source": s.source,
                "age": s.age,
                "sex": s.sex,
                "findings": s.findings,
                "diagnoses": list(s.diagnoses),
                "ingested_at": s.ingested_at,
            }
            for s in summaries
        ]
        print(json_printable(json.dumps({"records": rows, "total": records.count() if records else 0}, indent=2)))
        return 0
    if not summaries:
        print("no patient records stored (amg records ingest FILE...)")
        return 0
    for s in summaries:
        who = ", ".join(x for x in (s.sex, s.age) if x) or "?"
        print(printable(f"{s.id}  [{s.source}; {who}; {s.findings} findings]  {'; '.join(s.diagnoses) or '-'}"))
    total = records.count()
    if total > args.offset + len(summaries):
        print(f"... {total:,} in all (--offset {args.offset + len(summaries)} for more)")
    return 0


def _show(args, res: Resources) -> int:
    records = _store(res)
    stored = records.get(args.id) if records else None
    if stored is None:
        raise ValueError(f"no patient record {args.id!r} (amg records list)")
    r = stored.record
    links = res.store.patient_links(r.id)
    if args.json:
        body = {
            "id": r.id,
            "source": r.source,
            "age": r.age,
            "sex": r.sex,
            "present": [{"key": f.key, "label": f.label, "code": f.code} for f in r.present],
            "absent": [{"key": f.key, "label": f.label, "code": f.code} for f in r.absent],
            "diagnoses": [{"name": d.name, "ids": list(d.ids)} for d in r.diagnoses],
            "disease_nodes": [k for k in stored.diseases if k],
            "note": r.note,
            "file": stored.file,
            "line": stored.line,
            "graph_links": links,
        }
        print(json_printable(json.dumps(body, indent=2, ensure_ascii=False)))
        return 0
    print(
        printable(f"{r.id}  [{r.source}]  sex {r.sex or '?'}, age {r.age or '?'}  (from {stored.file}:{stored.line})")
    )
    for d, key in zip(r.diagnoses, [*stored.diseases, *[""] * len(r.diagnoses)]):
        node = f" -> graph: {key}" if key else " (not in the graph)"
        print(printable(f"  diagnosis: {d.name} {' '.join(d.ids)}{node}"))
    for label, found in (("present", r.present), ("absent", r.absent)):
        if found:
            print(printable(f"  {label}: " + "; ".join(f.label + (f" ({f.code})" if f.code else "") for f in found)))
    if r.note:
        print(printable(f"  note: {r.note[:500]}" + (" ..." if len(r.note) > 500 else "")))
    shared = sum(1 for x in links if x["kind"] == "finding")
    print(f"  graph: {shared} finding link(s), {sum(1 for x in links if x['kind'] == 'diagnosis')} diagnosis link(s)")
    return 0


def _delete(args, res: Resources) -> int:
    from amg.tools.records.ingest import delete

    records = _store(res)
    if records is None:
        raise ValueError("no patient records stored")
    gone, missing = delete(args.ids, records=records, graph=res.store)
    print(f"deleted {gone} patient record(s) from the graph, the record store and the similarity index")
    if missing:
        print(printable(f"not found: {', '.join(missing)}"))
    return 0 if not missing else 1


def _similar(args, res: Resources) -> int:
    from amg.agents.diagnostician import case_findings
    from amg.tools.kg.pipeline_types import SimilarPatient

    records = _store(res)
    index = res.patient_index
    if records is None or index is None:
        raise ValueError("no patient records stored (amg records ingest FILE...)")
    if args.record:
        stored = records.get(args.record)
        if stored is None:
            raise ValueError(f"no patient record {args.record!r} (amg records list)")
        present, absent = stored.record.finding_keys()
    else:
        present, absent = case_findings([], args.case, {})
        if not present:
            raise ValueError(
                "no finding read in the case: name its signs and symptoms (e.g. 'fever, rash, arthralgia')"
            )
    exclude = {args.record} if args.record else set()
    similar = index.similar(present, absent, k=args.k, exclude=exclude)
    names = {
        **index.names,
        **{
            k: e.get("name") or k
            for k, e in res.store.entities(sorted({d for p in similar for d in p.diagnoses})).items()
        },
    }
    rows = [
        SimilarPatient(
            id=p.id,
            similarity=p.score,
            diagnoses=[names.get(d, d) for d in p.diagnoses],
            shared=list(p.shared),
            contradicted=list(p.contradicted),
        )
        for p in similar
    ]
    if args.json:
        print(
            json_printable(json.dumps({"case": sorted(present), "absent": sorted(absent), "similar": rows}, indent=2))
        )
        return 0
    print(
        printable(f"case: {', '.join(sorted(present))}" + (f"; absent: {', '.join(sorted(absent))}" if absent else ""))
    )
    if not rows:
        print("no stored patient shares a finding with this case")
    for n, row in enumerate(rows, 1):
        print(
            printable(
                f"{n}. {row['id']}  similarity {row['similarity']:.2f}  diagnosis: {'; '.join(row['diagnoses']) or '-'}"
            )
        )
        print(printable(f"   shares: {', '.join(row['shared']) or '-'}"))
        if row["contradicted"]:
            print(printable(f"   contradicts: {', '.join(row['contradicted'])}"))
    return 0
