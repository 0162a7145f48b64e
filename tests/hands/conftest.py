"""Shared data of the hands tests: the real sample files and small hand histories written here."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "hands"
ABS = DATA / "abs-100nl.phhs"
PS = DATA / "ps-200nl.phhs"
MADE_UP_PS = DATA / "pokerstars-made-up.txt"

pytest.importorskip("pokerkit", reason="the hands package reads through pokerkit: pip install pokerkit")


def phh(actions: list[str], stacks=(100, 100, 100), blinds=(1, 2), antes=0, players=None, winnings=None,
        number: int | None = None, extra: str = "") -> str:
    """One hand as PHH text (a section of a .phhs when ``number`` is given)."""
    n = len(stacks)
    lines = [f"[{number}]"] if number is not None else []
    lines += [
        "variant = 'NT'",
        f"antes = {[antes] * n}",
        f"blinds_or_straddles = {list(blinds) + [0] * (n - len(blinds))}",
        f"min_bet = {max(blinds)}",
        f"starting_stacks = {list(stacks)}",
        f"actions = {actions!r}",
    ]
    if players is not None:
        lines.append(f"players = {list(players)!r}")
    if winnings is not None:
        lines.append(f"winnings = {list(winnings)!r}")
    if extra:
        lines.append(extra)
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="session")
def sample_replays():
    """Every replayed hand of the two real files, with the replay report."""
    from matchdb.hands import replay

    hands = []
    report = replay(DATA, on_hand=hands.append)
    return report, hands
