"""The dev sets' fit and report parts: disjoint, fixed, and the report parts free of what was fitted or chosen on."""

from __future__ import annotations

import hashlib

from amg.evaluation.splits import select, split_of


def ids(n: int, prefix: str = "q") -> list[dict]:
    return [{"id": f"{prefix}{i}"} for i in range(n)]


def test_mmlu_report_is_the_maps_eval_half():
    items = ids(50)
    report = {i["id"] for i in select("mmlu-med-dev", items, "report")}
    assert report == {i["id"] for i in items if int(hashlib.sha1(i["id"].encode()).hexdigest(), 16) % 2}


def test_pubmedqa_report_leaves_out_the_first_200_and_the_maps_fit_half():
    items = ids(400)
    parts = split_of("pubmedqa-dev", items)
    assert set(parts[:200]) == {"fit"}, "the questions rules were chosen on"
    report = [i for i, p in zip(items, parts) if p == "report"]
    assert report and all(int(hashlib.sha1(i["id"].encode()).hexdigest(), 16) % 2 for i in report)


def test_scifact_report_is_the_odd_claims_after_the_first_200_odd_ones():
    items = [{"id": str(n)} for n in range(1, 1001)]
    report = select("scifact-claims-train", items, "report")
    assert [int(i["id"]) for i in report][:2] == [401, 403] and all(int(i["id"]) % 2 for i in report)


def test_the_parts_are_disjoint_and_cover_the_set():
    for name in ("mmlu-med-dev", "pubmedqa-dev", "scifact-claims-train", "ddxplus-dev", "longform-dev"):
        items = [{"id": str(n)} for n in range(1, 301)]
        fit, report = select(name, items, "fit"), select(name, items, "report")
        assert {i["id"] for i in fit} & {i["id"] for i in report} == set()
        assert len(fit) + len(report) == 300 and select(name, items, "all") == items
