"""The ``amg`` command line: parsing and dispatch; each area's work lives in its own module."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import logging
import os
import re
import sys
import threading
import traceback
from typing import NoReturn

from amg.cli.errors import GRAPH_LOST, REPORTED, loaded
from amg.cli.terminal import printable
from amg.evaluation import METHODS
from amg.graphs.context import Context
from amg.tools.kg.vocabularies.seeding import VOCABULARIES


def _context_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mode", dest="evidence_mode", choices=Context.choices("evidence_mode"), help="evidence mode (AMG_MODE)"
    )
    parser.add_argument("--tau", type=float, help="traversal confidence threshold (AMG_TAU)")
    parser.add_argument("--depth", dest="max_depth", type=int, help="traversal depth (AMG_MAX_DEPTH)")
    parser.add_argument("--max-entities", type=int, help="entities per question (AMG_MAX_ENTITIES)")
    parser.add_argument("--traversal", choices=Context.choices("traversal"), help="traversal strategy (AMG_TRAVERSAL)")
    parser.add_argument(
        "--sources", help=f"evidence sources, comma-separated: {','.join(Context.choices('sources'))} (AMG_SOURCES)"
    )
    parser.add_argument(
        "--local-model", choices=Context.choices("local_model"), help="embedded model (AMG_LOCAL_MODEL)"
    )
    parser.add_argument(
        "--per-entity",
        dest="per_entity_reasoning",
        action="store_true",
        default=None,
        help="one reasoning call per entity (paper-faithful)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="amg", description="Agentic medical QA over a confidence-scored KG.")
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show the libraries' logging and progress bars (HTTP requests, model loading)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("doctor", help="check every component and print how to fix what is broken")

    kg = sub.add_parser("kg", help="the knowledge graph").add_subparsers(dest="kg_command", required=True)
    seed = kg.add_parser(
        "seed",
        help="foundation KG: HPO, ICD-10-CM, drugs, ChEBI, MONDO/DOID, ANSM interactions, WHO EML, MeSH, WordNet",
    )
    seed.add_argument("--vocabulary", default="all", choices=[*VOCABULARIES, "all"])
    seed.add_argument("--force", action="store_true", help="rewrite chunks already written (changes nothing)")
    seed.add_argument(
        "--name-index", action="store_true", help="also embed vocabulary names for fuzzy linking (slow: ~640 names/s)"
    )
    kg.add_parser("stats", help="counts of entities, relations and evidence")
    show = kg.add_parser("show", help="an entity and its confidence-scored neighbourhood")
    show.add_argument("entity")
    show.add_argument("--depth", dest="max_depth", type=int, help="traversal depth (AMG_MAX_DEPTH)")
    show.add_argument("--tau", type=float, help="traversal confidence threshold (AMG_TAU)")
    show.add_argument("--limit", type=int, default=25)
    audit = kg.add_parser("audit", help="confidence by origin and model; relations and descriptions without grounds")
    audit.add_argument("--fix", action="store_true", help="mark what breaks a rule weakened (nothing is deleted)")
    audit.add_argument("--json", action="store_true", help="print the report as one JSON object")
    history = kg.add_parser("history", help="how an entity's relations and confidences changed")
    history.add_argument("entity")
    export = kg.add_parser("export", help="write the graph to JSON lines (.jsonl) or GraphML (.graphml)")
    export.add_argument("path")
    imp = kg.add_parser("import", help="read a graph written by export")
    imp.add_argument("path")

    ingest = sub.add_parser(
        "ingest",
        help="add .txt/.md/.jsonl files to the textbook passage store; "
        "`amg ingest pubmed FILE...`: PubMed XML (.xml, .xml.gz) or JSON lines to the local PubMed index; "
        "`amg ingest papers FILE...`: the same, and SciFact's corpus or papers with a DOI (JSON lines)",
    )
    ingest.add_argument("paths", nargs="+", metavar="[pubmed|papers] PATH")
    search = sub.add_parser(
        "search", help="search the textbook passage store; `amg search pubmed QUERY`: the local PubMed index"
    )
    search.add_argument("query", nargs="+", metavar="[pubmed] QUERY")
    search.add_argument("-k", type=int, help="results (default 3 passages, 10 records)")
    search.add_argument("--json", action="store_true", help='PubMed: print {"results": [{"pmid": ...}, ...]}')

    pubmed = sub.add_parser(
        "pubmed", help="the local PubMed index kept current: `amg pubmed sync` mirrors NLM's baseline and update files"
    ).add_subparsers(dest="pubmed_command", required=True)
    sync = pubmed.add_parser(
        "sync",
        help="fetch NLM's files not yet ingested, check each against its .md5, ingest them in NLM's order",
        description="Mirror NLM's PubMed baseline/ and updatefiles/ into the local index: only files not yet "
        "ingested, a partial download continued, each checked against its .md5 before it is ingested, the "
        "baseline by number and then the update files by number. Papers the graph cites that were retracted "
        "or deleted are marked, and what rests on them weakened; revised ones are queued for `amg refresh`.",
    )
    sync.add_argument(
        "--base-url",
        metavar="URL",
        help="the folder holding baseline/ and updatefiles/ (default AMG_PUBMED_MIRROR, else NLM's "
        "https://ftp.ncbi.nlm.nih.gov/pubmed/)",
    )
    sync.add_argument(
        "--baseline",
        action="store_true",
        help="the first full load: the annual baseline too (~1,300 files, ~30 GB); default: the update files",
    )

    records = sub.add_parser(
        "records", help="your own patients, kept on this machine: ingest, list, show, delete, similar"
    ).add_subparsers(dest="records_command", required=True)
    records_in = records.add_parser(
        "ingest",
        help="read patient records: GA4GH phenopackets (JSON, JSON lines), DDXPlus patients (the dataset's "
        "dictionaries beside the file), AMG's own JSON lines (docs/records.md); a record with the same id is replaced",
    )
    records_in.add_argument("paths", nargs="+", metavar="FILE")
    records_list = records.add_parser("list", help="the stored patients")
    records_list.add_argument("--limit", type=int, default=50)
    records_list.add_argument("--offset", type=int, default=0)
    records_list.add_argument("--json", action="store_true")
    records_show = records.add_parser("show", help="one patient: findings, diagnoses, what it links to in the graph")
    records_show.add_argument("id")
    records_show.add_argument("--json", action="store_true")
    records_delete = records.add_parser(
        "delete", help="remove patients: graph, record store and similarity index keep nothing of them"
    )
    records_delete.add_argument("ids", nargs="+", metavar="ID")
    records_similar = records.add_parser(
        "similar", help="the stored patients most like a case (text) or a stored patient (--record ID)"
    )
    records_similar.add_argument("case", nargs="?", default="", help="the case in words: findings present and absent")
    records_similar.add_argument("--record", metavar="ID", help="a stored patient instead of a case in words")
    records_similar.add_argument("-k", type=int, default=3, help="how many (default 3)")
    records_similar.add_argument("--json", action="store_true")

    build = sub.add_parser("build", help="build the KG from topics, a question set or the ingested corpus")
    source = build.add_mutually_exclusive_group(required=True)
    source.add_argument("--topics", metavar="FILE", help="one entity or topic a line")
    source.add_argument("--questions", metavar="FILE.jsonl", help="a question set; entities are parsed from each")
    source.add_argument("--from-corpus", action="store_true", help="the entities most named in ingested passages")
    build.add_argument("--limit", type=int, default=10_000, help="at most this many topics")
    build.add_argument("--force", action="store_true", help="rebuild items already done")
    build.add_argument("--concurrency", type=int, default=4, help="entities built at once")
    _context_flags(build)
    refresh = sub.add_parser("refresh", help="re-check stale, frequently asked and borderline knowledge")
    refresh.add_argument("--every", metavar="DURATION", help="repeat every 30m / 6h / 1d, with jitter")
    refresh.add_argument("--limit", type=int, default=20, help="entities per pass")
    _context_flags(refresh)

    bench = sub.add_parser(
        "bench", help="evaluate on exam, research-question or claim sets (accuracy, calibration, cost)"
    )
    bench.add_argument(
        "dataset", help="JSONL (ours, MedQA), MedMCQA JSON lines, PubMedQA JSON, or SciFact claims (JSON lines)"
    )
    bench.add_argument(
        "--method",
        default="kg",
        choices=(*METHODS, "graph", "patients"),
        help="how questions are answered (default kg: AMG); with --records also graph (the differential alone) "
        "and patients (the similar patients' vote)",
    )
    bench.add_argument("--limit", type=int, help="first N questions")
    bench.add_argument(
        "--split",
        choices=("fit", "report", "all", "tune", "held-out"),
        help="the dev set's fit or report part (evaluation/splits.py: figures are reported from the report part); "
        "claims files also tune (even ids) or held-out (odd ids); default all",
    )
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument(
        "--records",
        metavar="RECORDS",
        help="diagnose patient cases (DDXPlus or phenopackets, the dataset's case files) with these records stored",
    )
    bench.add_argument(
        "--interactive",
        action="store_true",
        help="with --records: a DDXPlus case from its chief complaint, then up to 5 follow-ups a simulated "
        "patient answers",
    )
    bench.add_argument("--out", help="output folder (default bench-out/DATASET)")
    bench.add_argument("--resume", action="store_true", help="skip questions already answered in --out")
    bench.add_argument("--shuffle-options", action="store_true", help="permute options (seeded) against position bias")
    bench.add_argument("--use-options", action="store_true", help="retrieval also uses the option texts")
    bench.add_argument(
        "--model", help="an embedded model (1.5b, 0.5b, smollm2) or a model name at the configured endpoint"
    )
    bench.add_argument(
        "--open",
        action="store_true",
        help="ask without the options (every method); the open answer is judged by the option it stands for",
    )
    _context_flags(bench)

    ask = sub.add_parser("ask", help="answer one question")
    ask.add_argument("question", nargs="?", default=None)
    ask.add_argument("--option", action="append", default=[], metavar="A=TEXT", help="a multiple-choice option")
    ask.add_argument("--json", action="store_true", help="print one JSON object")
    ask.add_argument("--graph", metavar="FILE.html", help="write the evidence subgraph as an HTML picture")
    ask.add_argument(
        "--record", metavar="ID", help="diagnose a stored patient (amg records list): the record is the case"
    )
    _context_flags(ask)
    check = sub.add_parser(
        "check", help="check a claim against the literature index: each paper's stance, with its sentences, a verdict"
    )
    check.add_argument("claim")
    check.add_argument("--json", action="store_true", help="print one JSON object: each paper's stance and sentences")
    _context_flags(check)
    chat = sub.add_parser("chat", help="multi-turn chat; history kept under the data dir")
    chat.add_argument("--thread", default="default", help="conversation id")
    _context_flags(chat)
    return parser


def context_from(args: argparse.Namespace) -> Context:
    """The environment's settings with the command's flags in their place (a flag beats a bad variable)."""
    names = (
        "evidence_mode",
        "tau",
        "max_depth",
        "max_entities",
        "traversal",
        "sources",
        "local_model",
        "per_entity_reasoning",
    )
    return Context(**{name: getattr(args, name) for name in names if getattr(args, name, None) is not None})


def run(args: argparse.Namespace) -> int:
    if args.command == "doctor":
        from amg.cli.doctor import doctor

        return doctor(Context())
    if args.command == "kg":
        from amg.cli import kg

        return kg.run(args, context_from(args))
    if args.command == "records":
        from amg.cli import records

        return records.run(args, Context())
    if args.command == "pubmed":
        from amg.cli import pubmed_sync

        return pubmed_sync.run(args, Context())
    words = getattr(args, "paths", None) or getattr(args, "query", None) or []
    if args.command == "ingest" and len(words) > 1 and words[0] == "papers":
        from amg.cli import literature

        return literature.ingest(words[1:], Context(), any_paper=True)
    if args.command in ("ingest", "search") and len(words) > 1 and words[0] == "pubmed":
        from amg.cli import literature

        if args.command == "ingest":
            return literature.ingest(words[1:], Context())
        return literature.search(" ".join(words[1:]), args.k or 10, as_json=args.json, context=Context())
    if args.command in ("ingest", "search"):
        from amg.cli import corpus

        return corpus.run(args, Context())
    if args.command == "bench":
        from amg.cli import bench

        return bench.run(args, context_from(args))
    if args.command in ("build", "refresh"):
        from amg.cli import build

        return build.run(args, context_from(args))
    if args.command == "check":
        from amg.cli import check

        return check.run(args, context_from(args))
    from amg.cli import qa

    return qa.run(args, context_from(args))


SURROGATES = re.compile("[\ud800-\udfff]")  # what undecodable bytes become (surrogateescape)
OUR_VARIABLES = ("AMG_", "OPENAI_", "NEO4J_", "NCBI_")


def undecodable(argv: list[str], environ) -> str | None:
    """Why the command line or our environment variables cannot be read as text, if they cannot."""
    for n, arg in enumerate(argv, 1):
        if SURROGATES.search(arg):
            return f"argument {n} is not valid UTF-8 text; check the terminal's encoding (LANG)"
    for name, value in environ.items():
        if name.startswith(OUR_VARIABLES) and SURROGATES.search(value):
            return f"{name} is not valid UTF-8 text; set it again in UTF-8"
    return None


def main(argv: list[str] | None = None) -> int:
    """Run one command. As the ``amg`` program (no ``argv``) it ends the process itself, see ``_end``."""
    if argv is None:
        try:
            code = main(sys.argv[1:])
        except SystemExit as exc:  # argparse: usage errors and --help
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except Exception:  # a defect: its traceback, then the same safe exit
            traceback.print_exc()
            code = 1
        _end(code)
    problem = undecodable(argv, os.environ)  # before any thread or native library starts
    if problem:
        print(f"amg: error: {problem}", file=sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    from amg.cli.input_checks import problem as input_problem

    refused = input_problem(args)
    if refused:  # before anything starts for the command
        print(f"amg: error: {printable(refused)}", file=sys.stderr)
        return 2
    quiet_libraries(args.verbose)
    try:
        return run(args)
    except Exception as exc:
        if isinstance(exc, loaded(REPORTED)):
            print(f"amg: error: {printable(str(exc))}", file=sys.stderr)
            return 2
        if isinstance(exc, loaded(GRAPH_LOST)):  # the graph went away after connecting
            from amg.tools.kg.store.connection import graph_lost

            print(f"amg: error: {graph_lost(exc)}", file=sys.stderr)
            return 2
        raise
    except KeyboardInterrupt:
        print("amg: interrupted", file=sys.stderr)
        return 130


LIBRARIES = ("httpx", "httpcore", "openai", "sentence_transformers", "transformers", "chromadb", "urllib3", "filelock")


def quiet_libraries(verbose: bool) -> None:
    """The libraries' logging and progress bars off (AMG's own progress bars stay), unless ``verbose``.

    Runs before any library is imported: one of them (``abbreviations``) calls ``logging.basicConfig`` at INFO
    when imported, which printed every model request and turned on sentence-transformers' "Batches" bars; with a
    root handler already in place its call does nothing."""
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    if verbose:
        return
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # transformers' "Loading weights" bar
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    for name in LIBRARIES:
        logging.getLogger(name).setLevel(logging.WARNING)


def _end(code: int) -> NoReturn:
    """Exit with ``code``. While another thread runs (the embedder or a server loading in the background when
    a question was refused), the interpreter's own exit tears that thread down inside native code, which
    aborts the process (SIGABRT, "FATAL: exception not rethrown") after the error was printed: then the exit
    handlers run here (local servers unregister their client) and the process ends without that teardown."""
    if threading.active_count() == 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe must not change the code
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
