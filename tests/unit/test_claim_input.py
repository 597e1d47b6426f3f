"""Bad input to `amg check`: an empty claim, a 10,000-word one, one in another language; each a one-line error."""

from __future__ import annotations

import pytest

from amg.cli.main import main


@pytest.mark.parametrize(
    "claim, said",
    [
        ("", "amg: error: Please state a claim to check: the input was empty."),
        ("   \t ", "amg: error: Please state a claim to check: the input was empty."),
        (
            " ".join(["vitamin D prevents fractures"] * 2500),
            "amg: error: A claim to check is one statement of at most 80 words; this one has 10,000: "
            "state its main point.",
        ),
        (
            "Les suppléments de vitamine D préviennent les fractures",
            "amg: error: AMG checks claims in English (its literature index and model read English); this claim "
            "reads as French.",
        ),
        (
            "维生素D可以预防骨折",
            "amg: error: AMG checks claims in English (its literature index and model read English); this claim "
            "reads as another script.",
        ),
    ],
)
def test_a_claim_that_cannot_be_checked_is_one_line_and_no_traceback(claim, said, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("AMG_DATA_DIR", str(tmp_path))
    started = []
    monkeypatch.setattr(
        "amg.graphs.resources.Resources.start_in_background", lambda self, *names: started.append(names)
    )
    assert main(["check", claim]) == 2
    assert started == [], "no server starts for a claim that cannot be checked"
    err = capsys.readouterr().err
    assert err.strip() == said and "Traceback" not in err
