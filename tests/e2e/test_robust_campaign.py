"""The robustness campaign's short form, so a figure that leaves 0 fails `make test` the day it does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.robustness import GOALS

ROOT = Path(__file__).resolve().parents[2]


def test_short_campaign_keeps_every_goal_figure_at_zero():
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMG_")}  # the campaign sets its own
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.robustness", "--short", "--seed", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["short"] and figures["tried"] > 50
    assert {goal: figures[goal] for goal in GOALS} == dict.fromkeys(GOALS, 0), figures["notes"]
