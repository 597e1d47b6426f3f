"""The cot claim baseline: a reply whose reasoning ran out of tokens before its verdict line is asked for that line."""

from __future__ import annotations

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from amg.evaluation.claim_baselines import chain_of_thought


class Recording(FakeListChatModel):
    """Replies in turn, and keeps each request's messages."""

    seen: list = []

    def _call(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append([m.content for m in messages])
        return super()._call(messages, stop, run_manager, **kwargs)


def test_a_reasoning_cut_short_is_asked_for_its_verdict_line():
    llm = Recording(
        responses=["Vitamin D is involved in bone health, and trials in older adults", "Verdict: supported"], seen=[]
    )
    out = chain_of_thought("Vitamin D prevents fractures in older adults.", llm)
    assert out["verdict"] == "supported" and out["llm_calls"] == 2
    second = llm.seen[1]
    assert second[-2] == "Vitamin D is involved in bone health, and trials in older adults", "the reply so far is kept"
    assert "Verdict:" in second[-1]


def test_a_reply_with_its_verdict_is_asked_once():
    llm = Recording(responses=["Trials disagree.\nVerdict: not enough evidence"], seen=[])
    out = chain_of_thought("Vitamin D prevents fractures in older adults.", llm)
    assert out["verdict"] == "not enough evidence" and out["llm_calls"] == 1
