"""The relearning's own process: its trouble comes back as the learner's, it gives way to the
listener, and a worker that dies is started again at the next relearning."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from referee.asr.base import RecognizerError
from referee.learning_worker import NICE, LearningWorker
from web_scoreboard.app import DB_NAME
from web_scoreboard.store import Store


def test_trouble_in_the_worker_is_said_and_a_dead_worker_is_started_again(
        model: Path, tmp_path: Path) -> None:
    Store(tmp_path / DB_NAME).close()  # a store with no play: nothing to learn from
    worker = LearningWorker(tmp_path / DB_NAME, tmp_path / "models", model, 0.8)
    try:
        with pytest.raises(RecognizerError) as said:
            worker.learn()
        assert said.value.code == "learning" and said.value.message  # the worker's own words
        first = worker.pid
        assert first is not None and first != os.getpid()  # alive after trouble, in a process
        # behind the listener where the cores are busy
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, first) == min(ours + NICE, 19)

        os.kill(first, signal.SIGKILL)  # as if PocketSphinx crashed in it
        with pytest.raises(RecognizerError) as died:
            worker.learn()
        assert died.value.code == "learning-died" and "-9" in died.value.message
        assert worker.pid is None

        with pytest.raises(RecognizerError) as again:  # a new worker takes the next request
            worker.learn()
        assert again.value.code == "learning" and worker.pid not in (None, first)
    finally:
        worker.close()
    assert worker.pid is None
