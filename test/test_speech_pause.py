"""Issue 27, part 2, the rule alone: while the user speaks nothing new starts; a stop said
meanwhile ends the turn; the wait is bounded (the ROS race: test_speech_ros.py)."""
import threading
import time

import pytest

from llm_interaction_node.core.transcript.errors import InteractionAborted
from llm_interaction_node.core.user.interrupt import StopSignal
from llm_interaction_node.core.user.speech_pause import SpeechPause


def later(delay, fn, *args):
    threading.Timer(delay, fn, args=args).start()


def test_nothing_spoken_holds_nothing():
    pause = SpeechPause(StopSignal())
    assert pause.hold() < 0.05 and pause.holds == 0


def test_a_stop_said_while_speaking_ends_the_hold_as_aborted():
    stop = StopSignal()
    pause = SpeechPause(stop)
    pause.speaking(True)
    later(0.3, pause.speaking, False)
    later(0.5, stop.request, "stop topic")                 # recognised after the words
    start = time.monotonic()
    with pytest.raises(InteractionAborted, match="stop topic"):
        pause.hold()
    assert 0.45 < time.monotonic() - start < 1.0 and pause.holds == 1


def test_an_utterance_that_is_no_stop_holds_until_it_was_judged():
    pause = SpeechPause(StopSignal(), after_s=3.0, settle_s=0.1)
    pause.speaking(True)
    later(0.2, pause.speaking, False)
    later(0.5, pause.handled)
    waited = pause.hold()
    assert 0.55 <= waited < 1.0
    assert pause.hold() < 0.05                           # that speech is done with


def test_the_wait_is_bounded_after_the_speech_and_in_all():
    pause = SpeechPause(StopSignal(), after_s=0.4, max_s=5.0)
    pause.speaking(True)
    pause.speaking(False)                                  # never judged (a lost result)
    assert 0.35 < pause.hold() < 0.8
    pause = SpeechPause(StopSignal(), after_s=3.0, max_s=0.5)
    pause.speaking(True)                                   # speaks on and on (or asr died)
    assert 0.45 < pause.hold() < 0.9
