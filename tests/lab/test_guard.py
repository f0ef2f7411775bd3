"""The guard's record of a child's exception: its class and its message, head and tail kept."""

from __future__ import annotations

from prunelab.lab.experiments.guard import guarded


def _fails(message):
    def fn():
        raise ValueError(message)

    return fn


def test_a_long_message_keeps_its_first_and_its_last_words():
    message = "state 'maybe' of variable 'smoke' is unknown; valid: " + "yes, no, " * 200 + "the cause: a typo"
    record = guarded(_fails(message), timeout=60, max_bytes=2**33)
    assert record["status"] == "failed" and record["error"] == "ValueError"
    assert record["message"].startswith("state 'maybe' of variable 'smoke' is unknown")
    assert record["message"].endswith("the cause: a typo")
    assert " … " in record["message"] and len(record["message"]) == 603 < len(message)


def test_a_short_message_is_kept_whole():
    record = guarded(_fails("no such state"), timeout=60, max_bytes=2**33)
    assert record["message"] == "no such state"

