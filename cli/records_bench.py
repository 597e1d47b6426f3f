"""``amg bench CASES.jsonl --records RECORDS [--interactive] --out DIR``: diagnosis from patient records.

The records are ingested first (the DDXPlus dictionaries beside a DDXPlus records file; a record with an id already
stored is replaced). Each case is diagnosed from its text alone (``text``, or with ``--interactive`` a DDXPlus case's
chief complaint, then follow-up questions a simulated patient answers from its ``evidence_codes``, ``age`` and
``sex``): nothing the diagnosis reads comes from a case's answer fields, which may be missing (the figures are then
left to whoever holds them). Methods: ``kg`` (AMG: the graph's differential and the similar patients together),
``graph`` (the differential alone), ``patients`` (the similar patients' vote, top 3), ``closed-book`` (the bare
model, given DDXPlus's 49 pathologies). Writes DIR/predictions.jsonl, a line a case
``{"id", "diagnoses": [{"name", "id", "p"}], "similar": [ids], "turns": [{"question", "reply"}]}``, and
DIR/summary.json.
"""

from __future__ import annotations

import json
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

from tqdm import tqdm

from amg.agents.diagnostician import CaseDiagnosis, diagnose
from amg.evaluation.metrics import percentile
from amg.evaluation.records_metrics import Predicted, level_accuracy, top_k
from amg.evaluation.splits import select
from amg.graphs.context import Context
from amg.graphs.resources import Resources
from amg.tools.kg.schema import normalize_key

RECORD_METHODS = ("kg", "graph", "patients", "closed-book")
TURNS = 5  # follow-up questions at most, interactive
SHOWN = 10  # diagnoses written per case
ANSWER_FIELDS = {  # what a case file may carry that the diagnosis never reads
    "ddxplus": ("pathology", "icd10", "icd10_used", "L1", "L2", "differential"),
    "phenopacket": ("disease_id", "disease_label", "genes", "pmid", "cohort"),
}


def run(args, context: Context, res: Resources) -> int:
    method = args.method
    if method not in RECORD_METHODS:
        raise ValueError(f"--records benchmarks take --method {', '.join(RECORD_METHODS)}")
    cases = _cases(Path(args.dataset), None)
    parts = select(Path(args.dataset).stem, [row for _, row in cases], getattr(args, "split", None))
    chosen = {id(row) for row in parts}
    cases = [(kind, row) for kind, row in cases if id(row) in chosen]
    cases = cases[: args.limit] if args.limit else cases
    if args.interactive and any(kind != "ddxplus" for kind, _ in cases):
        raise ValueError("--interactive asks a DDXPlus case's follow-ups: the case file must be DDXPlus patients")
    records = Path(args.records)
    if not records.is_file():
        raise ValueError(f"no such records file: {records}")
    from amg.cli.records import ingest_files

    ingest_files([records], res, quiet=True)
    out = Path(args.out or f"bench-out/{Path(args.dataset).stem}-records")
    out.mkdir(parents=True, exist_ok=True)
    bench = RecordsBench(res, method=method, ddxplus=_ddxplus_reader(records, res))
    predictions, seconds, turns_right = [], [], []
    with (out / "predictions.jsonl").open("w", encoding="utf-8") as sink:
        for kind, row in tqdm(cases, desc=f"{Path(args.dataset).stem} {method}", unit=" case"):
            blind = {k: v for k, v in row.items() if k not in ANSWER_FIELDS[kind]}
            started = time.perf_counter()
            line = bench.interactive(blind) if args.interactive else bench.diagnose(kind, blind)
            seconds.append(time.perf_counter() - started)
            sink.write(json.dumps({k: v for k, v in line.items() if not k.startswith("_")}) + "\n")
            predictions.append((kind, row, line))
            turns_right.append(line.get("_after_turn", []))
    summary = _summary(args, method, predictions=predictions, seconds=seconds, turns_right=turns_right, bench=bench)
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    _print(summary)
    return 0


def _cases(path: Path, limit: int | None) -> list[tuple[str, dict]]:
    cases = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError:
                raise ValueError(f"{path}:{number}: not valid JSON") from None
            if not isinstance(row, dict) or not row.get("id") or not isinstance(row.get("text", ""), str):
                raise ValueError(f"{path}:{number}: a case is an object with an id and its text")
            kind = "ddxplus" if "evidence_codes" in row or "initial_evidence" in row else "phenopacket"
            cases.append((kind, row))
    return cases[:limit] if limit else cases


def _ddxplus_reader(records: Path, res: Resources):
    from amg.tools.phenotypes.lexicon import hpo_lexicon
    from amg.tools.records.ddxplus_records import reader_beside
    from amg.tools.records.formats import FindingNames

    return reader_beside(records, FindingNames(hpo_lexicon()), res.store)


class RecordsBench:
    """One method's diagnoses of the cases, with the stored patients of ``res``."""

    def __init__(self, res: Resources, *, method: str, ddxplus=None):
        self.res, self.method, self.ddxplus = res, method, ddxplus
        self.index = res.patient_index
        self._ids: dict[str, tuple[str, ...]] = {}

    def diagnose(self, kind: str, case: dict) -> dict:
        if self.method == "closed-book":
            return self._bare(kind, case)
        if kind == "ddxplus":
            if self.ddxplus is None:
                raise ValueError("a DDXPlus case needs the DDXPlus dictionaries beside the records file")
            answered = self.ddxplus.read_text(case.get("text") or "")
            return self._line(case["id"], self._diagnosis(answered, "", ddxplus=True), [])
        return self._line(case["id"], self._diagnosis({}, case.get("text") or ""), [])

    def _bare(self, kind: str, case: dict) -> dict:
        from amg.evaluation.records_baselines import bare_model

        if kind != "ddxplus" or self.ddxplus is None:
            raise ValueError("closed-book chooses among DDXPlus's pathologies: the cases must be DDXPlus patients")
        ranked = bare_model(case.get("text") or "", self.ddxplus.pathologies(), self.res.llm)
        diagnoses = [{"name": n, "id": "", "p": 1.0 if i == 0 else 0.0} for i, n in enumerate(ranked[:SHOWN])]
        return {"id": case["id"], "diagnoses": diagnoses, "similar": [], "turns": []}

    def _diagnosis(self, answered: dict[str, bool], text: str, ddxplus: bool = False) -> CaseDiagnosis | None:
        """The case diagnosed by this method's halves; a DDXPlus case among DDXPlus's pathologies, as the bare model
        is given them."""
        index = None if self.method == "graph" else self.index
        if ddxplus and self.ddxplus is not None:
            only = frozenset(self.ddxplus.pathology_keys)
            unaskable = frozenset(self.ddxplus.scale_keys())
            return diagnose(
                [], self.res.store, answered=answered, text=text, index=index, only=only, unaskable=unaskable
            )
        return diagnose([], self.res.store, answered=answered, text=text, index=index)

    def _line(self, case_id: str, case: CaseDiagnosis | None, turns: list[dict]) -> dict:
        if case is None:
            return {"id": case_id, "diagnoses": [], "similar": [], "turns": turns}
        if self.method == "patients":
            votes = _vote(case)
            ranked = [(key, p) for key, p in votes]
        else:
            ranked = [(c.key, c.probability) for c in case.ranked[:SHOWN]]
        diagnoses = [
            {"name": self._name(key, case), "id": self._disease_id(key), "p": round(p, 4)} for key, p in ranked
        ]
        return {
            "id": case_id,
            "diagnoses": diagnoses,
            "similar": [p.id for p in case.similar],
            "turns": turns,
            "_similar_diagnoses": [[i for d in p.diagnoses for i in self._all_ids(d)] for p in case.similar],
            "_ids": [list(self._all_ids(key)) for key, _ in ranked],
        }

    def _name(self, key: str, case: CaseDiagnosis) -> str:
        if self.ddxplus is not None:
            named = self.ddxplus.pathology_name(key)
            if named:
                return named
        return case.names.get(key) or (self.index.names.get(key, key) if self.index is not None else key)

    def _all_ids(self, key: str) -> tuple[str, ...]:
        if key not in self._ids:
            entity = self.res.store.entities([key]).get(key)
            aliases = list(entity.get("aliases") or []) if entity is not None else []
            ids = tuple(a for a in aliases if a.startswith(("OMIM:", "MONDO:", "ORPHA:")))
            self._ids[key] = ids or ((key,) if ":" in key else ())
        return self._ids[key]

    def _disease_id(self, key: str) -> str:
        ids = self._all_ids(key)
        return next((i for i in ids if i.startswith("OMIM:")), next((i for i in ids if i.startswith("MONDO:")), ""))

    def interactive(self, case: dict) -> dict:
        """A DDXPlus case from its chief complaint, then up to ``TURNS`` follow-ups the simulated patient answers."""
        if self.ddxplus is None:
            raise ValueError("an interactive case needs the DDXPlus dictionaries beside the records file")
        answered = self.ddxplus.read_text(self.ddxplus.chief_complaint(case))
        patient = self.ddxplus.simulated_patient(case)
        turns, leaders, asked_before = [], [], set()
        diagnosis = self._diagnosis(answered, "", ddxplus=True)
        leaders.append(self._leader(diagnosis))
        for _ in range(TURNS):
            pending = [f for f, _ in (diagnosis.asked if diagnosis else []) if f not in asked_before]
            if diagnosis is None or not pending:
                break
            asked = self.ddxplus.question(pending[0], diagnosis.labels.get(pending[0], pending[0]))
            asked_before.add(asked.finding)
            reply = patient(asked.finding)
            turns.append({"question": asked.question, "reply": reply})
            answered = {**answered, **self.ddxplus.read_reply(asked, reply)}
            diagnosis = self._diagnosis(answered, "", ddxplus=True)
            leaders.append(self._leader(diagnosis))
        line = self._line(case["id"], diagnosis, turns)
        line["_leaders"] = leaders
        return line

    def _leader(self, case: CaseDiagnosis | None) -> str:
        return self._name(case.ranked[0].key, case) if case and case.ranked else ""


def _vote(case: CaseDiagnosis) -> list[tuple[str, float]]:
    votes: dict[str, float] = {}
    for patient in case.similar[:3]:
        for d in patient.diagnoses:
            votes[d] = votes.get(d, 0.0) + patient.score / max(len(patient.diagnoses), 1)
    total = sum(votes.values()) or 1.0
    return sorted(((d, v / total) for d, v in votes.items()), key=lambda x: -x[1])


def _summary(
    args, method: str, *, predictions: list, seconds: list[float], turns_right: list, bench: RecordsBench
) -> dict:
    figures: dict = {}
    ddx = [(row, line) for kind, row, line in predictions if kind == "ddxplus"]
    pheno = [(row, line) for kind, row, line in predictions if kind == "phenopacket"]
    as_predicted = [
        Predicted(
            id=line["id"],
            names=tuple(d["name"] for d in line["diagnoses"]),
            ids=tuple(tuple(ids) for ids in line.get("_ids", [])),
            similar_diagnoses=tuple(tuple(ids) for ids in line.get("_similar_diagnoses", [])),
        )
        for _, _, line in predictions
    ]
    if ddx and bench.ddxplus is not None:
        gold = {row["id"]: row["pathology"] for row, _ in ddx if row.get("pathology")}
        level = bench.ddxplus.level
        figures["ddxplus"] = level_accuracy(as_predicted, gold, level)
        if args.interactive and gold:
            after = []
            for turn in range(TURNS + 1):
                right = [
                    (line["_leaders"][min(turn, len(line["_leaders"]) - 1)] == gold[row["id"]])
                    for row, line in ddx
                    if row["id"] in gold
                ]
                after.append(round(sum(right) / len(right), 4))
            figures["ddxplus"]["L3_after_turn"] = after
            figures["ddxplus"]["mean_questions"] = round(statistics.mean(len(line["turns"]) for _, line in ddx), 2)
    if pheno:
        gold = {row["id"]: row["disease_id"] for row, _ in pheno if row.get("disease_id")}
        figures["phenopackets"] = top_k(as_predicted, gold, lambda ids, g: g in ids)
    return {
        "method": method,
        "interactive": bool(args.interactive),
        "cases": len(predictions),
        "records": str(args.records),
        "split": getattr(args, "split", None) or "all",
        "figures": figures,
        "seconds_p50": round(percentile(seconds, 50), 3) if seconds else None,
        "seconds_p95": round(percentile(seconds, 95), 3) if seconds else None,
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def _print(summary: dict) -> None:
    print(
        f"{summary['method']}{' (interactive)' if summary['interactive'] else ''}: {summary['cases']} cases, "
        f"p50 {summary['seconds_p50']} s"
    )
    for name, figures in summary["figures"].items():
        print(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    print(json.dumps({"method": summary["method"], **summary["figures"], "seconds_p50": summary["seconds_p50"]}))


def normalized_name(name: str) -> str:
    return normalize_key(name)
