"""``amg ask`` and ``amg chat``: the QA graph from the terminal."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

from amg.cli.answer_format import json_result
from amg.cli.terminal import json_printable, printable
from amg.graphs.context import Context
from amg.graphs.resources import resources_for
from amg.tools.literature.paper_ids import label, scheme_of


def parse_options(raw: list[str]) -> dict[str, str]:
    options = {}
    for item in raw:
        letter, sep, text = item.partition("=")
        letter, text = letter.strip().upper(), text.strip()
        if not sep or not letter or not text:
            raise ValueError(f"--option takes LETTER=TEXT, got {item!r}")
        if letter in options:
            raise ValueError(f"--option {letter} was given more than once; each option needs its own letter")
        options[letter] = text
    return options


def run(args, context: Context) -> int:
    try:
        if args.command == "ask":
            return _ask(args, context)
        return _chat(args, context)
    finally:
        resources_for(context).close()


ANSWERING = ("answer", "weigh_claim", "record_answer")  # the nodes whose update is the turn's reply


def answered_first(run_graph, payload: dict, *, context: Context, show=None, config: dict | None = None) -> dict:
    """The graph's final state; ``show`` gets the answer's text as soon as the answer node (a claim's: its verdict's)
    has it (the relation scorer may still be learning from the evidence)."""
    result: dict = {}
    for kind, chunk in run_graph.stream(payload, config=config, context=context, stream_mode=["updates", "values"]):
        if kind == "values":
            result = chunk
            continue
        said = next((chunk[n] for n in ANSWERING if n in chunk and (chunk[n] or {}).get("messages")), None)
        if show and said:
            show(str(said["messages"][-1].content))
    return result


def _ask(args, context: Context) -> int:
    record = getattr(args, "record", None)
    if record and (args.question or args.option):
        raise ValueError("--record ID diagnoses a stored patient: give no question or options with it")
    if args.question is None and not record:
        raise ValueError("give a question, or --record ID to diagnose a stored patient")
    payload = {"question": args.question or "", "options": parse_options(args.option)}
    if record:
        payload = {"record": record}
    from amg.graphs.qa_graph import graph  # langgraph, the agents and their model client: seconds to load

    if record:
        resources_for(context).start_in_background("store")  # no model: a record's case is answered without one
    elif args.question.strip():
        resources_for(context).start_in_background("store", "llm", "embedder")
    show = None if args.json else (lambda text: print(printable(text), flush=True))
    result = answered_first(graph, payload, context=context, show=show)
    if result.get("problem"):
        raise ValueError(result["problem"])
    if args.graph:
        from amg.cli.evidence_picture import write_picture

        write_picture(result, Path(args.graph))
    if args.json:
        print(json_printable(json.dumps(json_result(result), indent=2, ensure_ascii=False)))
        return 0
    for line in learned_lines(result):
        print(printable(line))
    if args.graph:
        print(f"evidence subgraph written to {args.graph}")
    return 0


def learned_lines(result: dict) -> list[str]:
    """What the question taught the graph after its answer, each relation with its papers, and any fault there."""
    lines = []
    if result.get("timings_ms", {}).get("learn"):
        lines.append(f"learned {len(result.get('new_relations', []))} relation(s) from this question's evidence")
        for r in result.get("new_relations", []):
            papers = ", ".join(label(i) for i in r["evidence_ids"] if scheme_of(i))
            lines.append(
                f"  {r['source']} -{r['type']}-> {r['target']} ({r['confidence']:.2f})"
                + (f" [{papers}]" if papers else "")
            )
    faults = [d for d in result.get("degradations", []) if d.startswith("learning after the answer failed")]
    return lines + [f"note: {fault} (the answer above stands)" for fault in faults]


def _chat(args, context: Context) -> int:
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    from amg.graphs.qa_graph import builder

    path = context.data_path / "chat.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    with SqliteSaver.from_conn_string(str(path)) as saver:
        chat_graph = builder.compile(checkpointer=saver, name="AMG chat")
        config = {"configurable": {"thread_id": args.thread or str(uuid.uuid4())}}
        print(f"AMG chat (thread {args.thread}); an empty line or Ctrl-D ends it.")
        resources_for(context).start_in_background("store", "llm", "embedder")  # while the first question is typed
        for line in _lines():
            text = line.strip()
            if not text:
                break
            shown: list[str] = []

            def show(said: str) -> None:
                shown.append(said)  # noqa: B023 (called within this turn)
                print("amg> " + printable(said).replace("\n", "\n     "), flush=True)

            result = answered_first(
                chat_graph, {"messages": [HumanMessage(text)]}, context=context, show=show, config=config
            )
            if not shown:  # the input could not be asked (empty, too long...): the graph said why
                show(str(result["messages"][-1].content))
    return 0


def _lines():
    """Lines from a pipe, or prompted lines from a terminal until Ctrl-D."""
    if not sys.stdin.isatty():
        try:
            yield from sys.stdin
        except UnicodeDecodeError as exc:
            raise ValueError(f"standard input is not UTF-8 text (byte {exc.object[exc.start]:#04x})") from None
        return
    while True:
        try:
            yield input("you> ")
        except EOFError:
            return
