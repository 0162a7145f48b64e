"""The hand replayer (issue 23): ``POST /v1/replayer`` and its page at ``/replayer``.

The page sends hand histories as text (PHH, or a site's raw histories that
pokerkit parses) and the number of a hand; the route reads them all with
:func:`matchdb.hands.read_text`, replays the chosen hand through the engine
(:func:`matchdb.hands.replay_hand`) and sends its frames with every player's
equity (:func:`matchdb.hands.walkthrough.walk`), the labels of the hands read
and the one-sentence reasons of those refused. The page steps through the
frames; it computes nothing.

>>> text = '''[1]
... variant = 'NT'
... antes = [0, 0]
... blinds_or_straddles = [1, 2]
... min_bet = 2
... starting_stacks = [200, 200]
... actions = ['d dh p1 AhKh', 'd dh p2 QsQd', 'p2 cbr 6', 'p1 f']
... [2]
... variant = 'FT'
... '''
>>> answer = replayer_answer(None, text, 0, "two.phhs", None, "random")
>>> answer["count"], answer["refused"], [f["text"] for f in answer["replay"]["frames"]]
(1, 1, ['dealt', 'p2 raises to 6', 'p1 folds', 'p2 wins 4'])
"""

# No ``from __future__ import annotations``: FastAPI and pydantic read these annotations at run time.
from typing import Any

from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field

from matchdb.db.query import MatchDB
from matchdb.errors import MatchdbError
from matchdb.service.costs import HEAVY_SECONDS, Cost
from matchdb.service.guards import answer

__all__ = ["MAX_LABELS", "ReplayerQuestion", "add_routes", "replayer_answer"]

#: Labels of the hands read sent at most (the page lists them to choose from); the count is always whole.
MAX_LABELS = 5_000
#: Refusals sent at most, with their total.
MAX_REFUSALS = 50


class ReplayerQuestion(BaseModel):
    """What ``POST /v1/replayer`` takes: hand histories as text and which hand to step through."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(description="hand histories: PHH (.phh or .phhs text) or a site's raw histories")
    hand: int = Field(0, ge=0, description="which hand to replay, counting the hands read from 0")
    name: str = Field("hands.phhs", max_length=200, description="a file name for messages (its ending does not matter)")
    site: str | None = Field(None, description="the site of raw histories (default: detected)")
    opponent_range: str = Field("random", max_length=500, description="the range standing for each hidden hand")


def replayer_answer(db: MatchDB | None, text: str, hand: int, name: str, site: str | None,
                    opponent_range: str) -> dict[str, Any]:
    """The hands read from ``text``, and hand number ``hand`` replayed with every player's equity at every step."""
    from matchdb.hands import read_text, replay_hand
    from matchdb.hands.walkthrough import walk

    stream = read_text(text, name, site=site)
    records = list(stream)
    refused = [r.message for r in stream.refused]
    if not records:
        reason = f": {refused[0].rstrip('.')}" if refused else ""
        raise MatchdbError(f"No no-limit hold'em hand could be read from the text{reason}; expected PHH or a site's hand histories.")
    if hand >= len(records):
        raise MatchdbError(f"The hand number {hand} is beyond the {len(records)} hands read; expected 0 to {len(records) - 1}.")
    done = replay_hand(records[hand])
    return {
        "count": len(records),
        "labels": [r.label for r in records[:MAX_LABELS]],
        "refused": len(refused),
        "refusals": refused[:MAX_REFUSALS],
        "replay": walk(done, db, opponent_range),
    }


def add_routes(app: FastAPI, db: MatchDB) -> None:
    """Add ``POST /v1/replayer``, answering hidden hands' equities from ``db``."""

    @app.post("/v1/replayer", summary="Read hand histories and step through one hand with every player's equity")
    async def post_replayer(request: Request, question: ReplayerQuestion) -> dict[str, Any]:
        # reading up to 2 MB of text, then a hand's equities (the database's, where hands are hidden): in a worker
        # process that is stopped when the client goes away, like every heavy question
        cost = Cost(HEAVY_SECONDS + 1e-7 * len(question.text), f"{len(question.text):,} characters of hand histories")
        return await answer(request, cost, replayer_answer, question.text, question.hand, question.name, question.site,
                            question.opponent_range)
