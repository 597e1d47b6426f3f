"""The graph store against the real local Bolt server."""

from __future__ import annotations

import json
import multiprocessing
import os

import pytest

from amg.testing.graph_staging import clear, delete_by_origin
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord

EV = EvidenceRecord(id="pmid:1", kind="pubmed", title="Metformin in T2D", pmid="1", year=2020)


def rel(source, target, type_="treats", conf=0.9, evidence=("pmid:1",), origin="pubmed"):
    return RelationRecord(
        source,
        target,
        type=type_,
        confidence=conf,
        evidence_ids=list(evidence),
        score_raw=conf * 10,
        description="d",
        origin=origin,
        model="m",
    )


def test_schema_is_idempotent(store):
    store.ensure_schema()
    store.ensure_schema()
    names = {row["name"] for row in store.read("SHOW INDEXES YIELD name RETURN name")}
    assert names, "constraints and indexes exist"


def test_upsert_creates_links_and_aliases(store):
    store.upsert(
        entities=[EntityRecord("Metformin", "drug", aliases=["Glucophage"])],
        evidence=[EV],
        relations=[rel("Metformin", "Type 2 diabetes mellitus")],
        supports=[("Metformin", "pmid:1")],
    )
    assert store.get_entity("GLUCOPHAGE")["name"] == "Metformin"
    assert store.get_entity("type 2 diabetes mellitus")["type"] == "other"
    edges = store.neighbors(["metformin"], 0.0, per_node=10)
    assert [(e["other"], e["rel"], e["confidence"], e["forward"]) for e in edges] == [
        ("type 2 diabetes mellitus", "treats", 0.9, True)
    ]
    assert [v["id"] for v in store.supports("metformin")] == ["pmid:1"]


def test_evidence_keeps_its_content_but_follows_its_file_when_it_moves(store):
    """A textbook passage ingested from a relative path once linked file://examples/..., which opens nothing."""
    passage = EvidenceRecord(id="textbook:a.md::0", kind="textbook", title="a.md", snippet="old", url="file://a.md")
    store.upsert(evidence=[passage])
    store.upsert(
        evidence=[EvidenceRecord(id=passage.id, kind="textbook", title="a.md", snippet="new", url="file:///books/a.md")]
    )
    store.upsert(evidence=[EvidenceRecord(id=passage.id, kind="textbook", title="a.md", snippet="newer")])
    [stored] = store.evidence([passage.id])
    assert (stored["snippet"], stored["url"]) == ("old", "file:///books/a.md")


def test_a_paper_keeps_the_sentences_every_check_read_and_is_found_by_the_entities_it_was_read_for(store):
    """Two claim checks read different sentences of one paper: both are kept, once each; a write without sentences
    (a research question's finding) keeps them; the paper is found from either entity, a withdrawn one never."""
    one, two, three = (json.dumps({"n": n, "text": f"Sentence {n}."}, sort_keys=True) for n in (1, 2, 3))
    paper = dict(id="s2:9", kind="pubmed", title="Vitamin D trial")
    store.upsert(entities=[EntityRecord("Vitamin D")], evidence=[EvidenceRecord(**paper, sentences=[one, two])])
    store.upsert(
        entities=[EntityRecord("Fracture")],
        evidence=[EvidenceRecord(**paper, sentences=[two, three])],
        supports=[("vitamin d", "s2:9"), ("fracture", "s2:9")],
    )
    store.upsert(evidence=[EvidenceRecord(**paper)])
    [stored] = store.evidence(["s2:9"])
    assert sorted(stored["sentences"]) == [one, two, three]
    assert [p["id"] for p in store.papers_read(["fracture", "vitamin d"], 5)] == ["s2:9"], "each paper once"
    gone = EvidenceRecord(id="pmid:7", kind="pubmed", title="Retracted", status="retracted")
    store.upsert(evidence=[gone], supports=[("fracture", "pmid:7")])
    assert [p["id"] for p in store.papers_read(["fracture"], 5)] == ["s2:9"]


def test_reupsert_keeps_better_supported_confidence_and_appends_history(store):
    store.upsert(
        evidence=[EV, EvidenceRecord(id="pmid:2", kind="pubmed")], relations=[rel("A drug", "A disease", conf=0.9)]
    )
    same = store.upsert(relations=[rel("A drug", "A disease", conf=0.9)])
    assert same.relations_unchanged == 1 and same.relations_written == 0
    # weaker claim on the same single evidence: newer wins a tie in support
    store.upsert(relations=[rel("A drug", "A disease", conf=0.6)])
    # two pieces of evidence beat one
    store.upsert(relations=[rel("A drug", "A disease", conf=0.8, evidence=("pmid:1", "pmid:2"))])
    # one piece again cannot overturn the better-supported value
    store.upsert(relations=[rel("A drug", "A disease", conf=0.2)])
    row = store.relation_history("a drug")[0]
    assert row["confidence"] == 0.8
    events = [json.loads(h) for h in row["history"]]
    assert [e["event"] for e in events] == ["created", "reassessed", "reassessed", "reassessed"]
    assert events[-1]["kept"] == "previous" and events[-1]["confidence"] == 0.2


@pytest.mark.parametrize(
    "name",
    [
        'O\'Brien "syndrome"',
        "back\\slash\\",
        "x'}) DETACH DELETE n //",
        "MATCH (n) RETURN n",
        "Ünïcödé 糖尿病",
    ],
)
def test_hostile_names_are_stored_verbatim_never_executed(store, name):
    store.upsert(
        entities=[EntityRecord("Anchor", "other")], evidence=[EV], relations=[rel(name, "Anchor", "associated_with")]
    )
    assert store.get_entity(name)["name"] == name
    assert store.stats()["entities"] == 2


def test_gap_check_classifies(store):
    store.upsert(evidence=[EV], relations=[rel("Strong", "Other one", conf=0.9), rel("Weak", "Other two", conf=0.3)])
    reports = {
        r.key: r.status
        for r in store.gap_check(["strong", "weak", "absent"], 0.5, stale_before="2000-01-01", min_relations=1)
    }
    assert reports == {"strong": "ok", "weak": "thin", "absent": "missing"}
    stale = {r.key: r.status for r in store.gap_check(["strong"], 0.5, stale_before="2999-01-01", min_relations=1)}
    assert stale == {"strong": "stale"}


def test_delete_by_origin(store):
    store.upsert(evidence=[EV], relations=[rel("A", "B", origin="pubmed"), rel("A", "C", origin="vocabulary:hpo")])
    assert delete_by_origin(store, "pubmed") == 1
    assert [e["other"] for e in store.neighbors(["a"], 0, per_node=10)] == ["c"]


def test_export_import_roundtrip(store, tmp_path):
    from amg.tools.kg.transfer.export_import import export_graph, import_graph

    store.upsert(
        entities=[
            EntityRecord(
                "Metformin", "drug", description="A biguanide.", description_confidence=0.9, aliases=["Glucophage"]
            )
        ],
        evidence=[EV],
        relations=[rel("Metformin", "T2DM"), rel("T2DM", "Polyuria", "symptom_of", 0.7)],
        supports=[("Metformin", "pmid:1")],
    )
    store.upsert(relations=[rel("Metformin", "T2DM", conf=0.5)])  # some history
    before = sorted(json.dumps(r, sort_keys=True) for r in store.export_records())
    for suffix in (".jsonl", ".graphml"):
        path = tmp_path / f"kg{suffix}"
        export_graph(store, path)
        clear(store)
        import_graph(store, path)
        assert sorted(json.dumps(r, sort_keys=True) for r in store.export_records()) == before, suffix


def _writer(args):
    uri, password, worker = args
    from neo4j import GraphDatabase

    from amg.tools.kg.store.neo4j_store import Neo4jStore

    with GraphDatabase.driver(uri, auth=("root", password)) as driver:
        store = Neo4jStore(driver)
        for i in range(15):
            store.upsert(
                evidence=[EvidenceRecord(id=f"pmid:{worker}{i}", kind="pubmed")],
                relations=[
                    RelationRecord(
                        "Shared drug",
                        f"Target {i}",
                        type="treats",
                        confidence=0.5 + worker / 10,
                        evidence_ids=[f"pmid:{worker}{i}"],
                        score_raw=5,
                        description="",
                        origin=f"w{worker}",
                        model="m",
                    )
                ],
            )
    return worker


def test_concurrent_writers_lose_nothing(store):
    state = json.loads((store_home(store) / "server.json").read_text())
    password = (store_home(store) / "password").read_text().strip()
    uri = f"bolt://127.0.0.1:{state['ports']['bolt']}"
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        assert sorted(pool.map(_writer, [(uri, password, 1), (uri, password, 2)])) == [1, 2]
    rows = store.outgoing("shared drug")
    assert len(rows) == 15, "one relation per target, no duplicates"
    assert all(len(r["props"]["evidence_ids"]) == 2 for r in rows), "both writers' evidence kept on every relation"
    assert store.count_entities("shared drug") == 1


def _claimer(args):
    uri, password, worker, start_at = args
    import time

    from neo4j import GraphDatabase

    from amg.tools.kg.store.neo4j_store import Neo4jStore

    with GraphDatabase.driver(uri, auth=("root", password)) as driver:
        store = Neo4jStore(driver)
        store.read("RETURN 1 AS ok")  # connected before the start line
        time.sleep(max(0.0, start_at - time.time()))
        return [i for i in range(30) if store.claim(f"entity {i}", f"refresher {worker}", minutes=60)]


def test_two_processes_never_claim_the_same_entity(store):
    import time

    store.upsert(entities=[EntityRecord(f"Entity {i}", "disease") for i in range(30)])
    state = json.loads((store_home(store) / "server.json").read_text())
    password = (store_home(store) / "password").read_text().strip()
    uri = f"bolt://127.0.0.1:{state['ports']['bolt']}"
    start_at = time.time() + 3
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        first, second = pool.map(_claimer, [(uri, password, 1, start_at), (uri, password, 2, start_at)])
    assert not set(first) & set(second), "no entity claimed by both refreshers"
    assert sorted(first + second) == list(range(30)), "every entity claimed by one of them"
    owners = {e.get("refresh_owner") for e in store.entities([f"entity {i}" for i in range(30)]).values()}
    assert owners <= {"refresher 1", "refresher 2"}


def store_home(store):
    from pathlib import Path

    return Path(os.environ["AMG_DATA_DIR"]) / "graph"


def test_unique_constraints_refuse_a_duplicate(store):
    from neo4j.exceptions import ConstraintError

    store.ensure_schema()
    for label, key in (("Entity", "key"), ("Evidence", "id"), ("Alias", "key")):
        create = f"CREATE (:{label} {{{key}: 'duplicate-probe'}})"  # labels from this fixed list only
        store.write(lambda tx, q=create: tx.run(q).consume())
        with pytest.raises(ConstraintError):
            store._driver.execute_query(create, database_=store._database)  # once, not retried
