"""`amg kg import` reports a line it cannot read as that line's problem, whatever made json.loads fail."""

from __future__ import annotations

import pytest

from amg.tools.kg.transfer.export_import import import_graph


class NothingWritten:
    """A store that fails the test if the import reaches it."""

    def __getattr__(self, name):
        raise AssertionError(f"the import called store.{name} on a file it should reject")


def test_a_number_too_long_for_python_is_a_rejected_line(tmp_path):
    # valid JSON, but json.loads raises a plain ValueError (no .msg, no .colno) past 4300 digits
    path = tmp_path / "long.jsonl"
    path.write_text('{"kind": "entity", "key": "a", "props": {"hits": ' + "1" * 5000 + "}}\n")
    with pytest.raises(ValueError) as caught:
        import_graph(NothingWritten(), path)
    message = str(caught.value)
    assert "nothing was imported" in message
    assert "line 1: cannot be read as JSON (Exceeds the limit" in message


def test_a_kind_that_is_not_text_is_a_rejected_line(tmp_path):
    # an unhashable kind (a list, an object) cannot even be looked up among the record kinds
    path = tmp_path / "kinds.jsonl"
    path.write_text('{"kind": []}\n{"kind": {"a": 1}}\n')
    with pytest.raises(ValueError) as caught:
        import_graph(NothingWritten(), path)
    message = str(caught.value)
    assert "line 1: unknown record kind []" in message
    assert "line 2: unknown record kind {'a': 1}" in message
