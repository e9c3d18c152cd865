"""tests/support/tty_session: answers go out only after their prompt, in order; a prompt that never
comes fails with what was read."""

from __future__ import annotations

import pytest
from support.tty_session import SessionFailed, converse

SCRIPT = 'printf "Current password: "; read a; printf "New password: "; read b; echo "got $a then $b"'


def test_each_answer_follows_its_prompt() -> None:
    said = converse(["bash", "-c", SCRIPT], [("Current password: ", "old"), ("New password: ", "new")], 10)
    assert said.endswith("got old then new\n")


def test_a_prompt_that_never_comes_fails_with_what_was_read() -> None:
    with pytest.raises(SessionFailed, match=r"no 'Retype' before the end; read:\nCurrent password: New"):
        converse(["bash", "-c", SCRIPT], [("Current", "a"), ("New", "b"), ("Retype", "c")], 10)


def test_the_deadline_ends_a_silent_session() -> None:
    with pytest.raises(SessionFailed, match="deadline passed; read:\nwaiting"):
        converse(["bash", "-c", "echo waiting; sleep 30"], [("prompt", "x")], 1.0)
