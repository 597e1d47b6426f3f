"""Parallel branches against a server that answers one request at a time (the embedded llama.cpp server)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from amg.testing.scripted_llm import ScriptedServer
from amg.tools.llm.chat import EndpointChat, ModelUnavailable

ANSWER_S, BUDGET_S = 1.0, 1.6  # one answer fits the budget; an answer plus a wait for another does not


@pytest.fixture
def one_slot_server():
    slot = threading.Lock()

    def respond(body):
        with slot:  # like llama.cpp's single slot: a second request waits for the first
            time.sleep(ANSWER_S)
        return {"content": "ok"}

    server = ScriptedServer(respond)
    yield server
    server.close()


def ask_three_at_once(server, one_at_a_time: bool) -> list:
    llm = EndpointChat(
        base_url=server.base_url,
        api_key="x",
        model="scripted",
        timeout=BUDGET_S,
        max_retries=0,
        budget_s=BUDGET_S,
        one_at_a_time=one_at_a_time,
    )

    def ask(_):
        try:
            return llm.invoke("hello").content
        except ModelUnavailable as exc:
            return exc

    with ThreadPoolExecutor(3) as pool:
        return list(pool.map(ask, range(3)))


def test_waiting_for_a_turn_does_not_count_against_the_budget(one_slot_server):
    assert ask_three_at_once(one_slot_server, one_at_a_time=True) == ["ok", "ok", "ok"]


def test_without_turns_queued_calls_time_out(one_slot_server):
    """The failure the turns prevent: learning branches after the answer timed out in the queue."""
    replies = ask_three_at_once(one_slot_server, one_at_a_time=False)
    assert any(isinstance(r, ModelUnavailable) and "did not answer within" in str(r) for r in replies)
