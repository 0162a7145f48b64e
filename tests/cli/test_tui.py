"""``matchdb play`` in the terminal, driven by textual's test pilot through whole hands, over a real Session.

The app shows the session's view and nothing else: after every hand the table on screen is compared with
``Session.view()``, bots' cards appear only after a showdown they reached, refused actions leave a sentence
and change nothing, and leaving then resuming carries the stacks (the kept PHH replays in pokerkit).
"""

from __future__ import annotations

import asyncio
import re

import pytest

from matchdb.cli.main import main
from matchdb.human import Session, TableConfig

pytest.importorskip("textual")
pokerkit = pytest.importorskip("pokerkit")

from textual.widgets import Button, Checkbox, Input, Select, Static  # noqa: E402  (after the skip)

from matchdb.cli.tui import PlayApp, log_line, result_line, seat_lines  # noqa: E402

SIZE = (120, 44)


def shown(app: PlayApp, name: str) -> str:
    return str(app.query_one(f"#{name}", Static).content)


def table(tmp_path, seats=3, opponents="station,allin", **extra) -> Session:
    config = TableConfig(seats=seats, opponents=opponents, stack=200, small_blind=1, big_blind=2, seed=5, **extra)
    return Session.new(config, directory=tmp_path)


async def play_hand(app: PlayApp, pilot, choose) -> None:
    """Play the hand in progress to its end: bots by the app's timer, the person by ``choose(view) -> button id``."""
    session = app.session
    for _ in range(400):
        await pilot.pause()
        view = session.view()
        if view["hand_over"]:
            return
        if view["your_turn"]:
            button = choose(view)
            assert not app.query_one(f"#{button}", Button).disabled, (button, view["legal"])
            await pilot.click(f"#{button}")
            await pilot.pause(0.25)  # a button ignores clicks during its 0.2 s pressed effect
        else:
            await asyncio.sleep(0.01)
    raise AssertionError("the hand did not end")


def calls(view) -> str:
    return "call" if view["legal"]["call"] else "check"


def test_whole_hands_through_the_terminal_table(tmp_path):
    """Three hands against the calling station and the all-in bot, clicking call/check, a pot bet and an amount."""
    session = table(tmp_path)
    app = PlayApp(session, pause=0)
    screens = []

    async def drive():
        async with app.run_test(size=SIZE) as pilot:
            await play_hand(app, pilot, calls)
            view = session.view()
            screens.append(shown(app, "table"))
            assert shown(app, "table") == "\n".join(seat_lines(view))  # the table shown is the session's
            assert view["last"]["showdown"]  # the all-in bot shoves and the station calls: cards are shown
            for seat in view["seats"][1:]:
                if not seat["folded"]:
                    assert " ".join(seat["cards"]) in shown(app, "table")
            assert f"hand {view['last']['hand']}:" in shown(app, "message")
            assert not app.query_one("#next", Button).disabled
            await pilot.press("n")
            await pilot.pause()
            assert session.view()["hand"] == 2
            # a bet from the presets when one is allowed, else call/check
            await play_hand(app, pilot, lambda v: "pot" if v["legal"]["raise"] else calls(v))
            await pilot.press("n")
            await pilot.pause()
            # a raise to a typed amount: a bad amount is refused in a sentence and changes nothing
            for _ in range(200):
                await pilot.pause()
                view = session.view()
                if view["your_turn"] or view["hand_over"]:
                    break
            if view["your_turn"] and view["legal"]["raise"]:
                before = session.view()
                app.query_one("#amount", Input).value = str(before["legal"]["max_raise_to"] + 1)
                await pilot.click("#raise")
                await pilot.pause()
                assert "outside the legal range" in shown(app, "message")
                assert session.view()["log"] == before["log"]
                amount = app.query_one("#amount", Input)
                amount.focus()
                amount.value = str(before["legal"]["min_raise_to"])
                await pilot.press("enter")  # typed, then Enter in the amount box
                await pilot.pause()
                assert len(session.view()["log"]) > len(before["log"]), shown(app, "message")
                entry = session.view()["log"][len(before["log"])]
                assert (entry["name"], entry["action"], entry["amount"]) == ("you", "raise",
                                                                               before["legal"]["min_raise_to"])
            await play_hand(app, pilot, calls)
            await pilot.press("q")
            await pilot.pause()
        return app.return_value

    summary = asyncio.run(drive())
    assert summary is not None and summary["hands"] == 3 and summary["left"]
    assert sum(summary["stacks"]) == sum(summary["buyins"])
    # every hand is kept as PHH and pokerkit replays it to the session's stacks
    with open(session.history_path, "rb") as handle:
        histories = list(pokerkit.HandHistory.load_all(handle))
    assert len(histories) == 3
    for history in histories:
        *_, state = history
        assert list(state.stacks) == history.finishing_stacks
    last = histories[-1]
    ended = dict(zip(last.players, last.finishing_stacks, strict=True))
    assert ended == dict(zip(summary["names"], summary["stacks"], strict=True))
    # resumed: the same results (a broke cash player has bought in again for the fourth hand, now dealt)
    again = Session.resume(session.id, tmp_path)
    assert [s - b for s, b in zip(again.stacks, again.buyins, strict=True)] == summary["net"] and again.view()["hand"] == 4
    assert all(a == (s or 200) for a, s in zip(again.stacks, summary["stacks"], strict=True))


def test_bots_wait_for_the_pause_and_an_action_out_of_turn_changes_nothing(tmp_path):
    """With a long pause the bot to act has not acted; the person's fold is refused in one sentence."""
    session = table(tmp_path, seats=4, opponents="station,station,station")
    assert not session.view()["your_turn"]  # four seats: the person is not first to act
    app = PlayApp(session, pause=60)

    async def drive():
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            before = session.view()
            await pilot.press("f")
            await pilot.pause()
            assert re.fullmatch(r"It is station(-\d)?'s turn \(seat \d\), not yours\.", shown(app, "message"))
            assert session.view() == before
            assert all(app.query_one(f"#{b}", Button).disabled for b in ("fold", "check", "call", "pot", "raise"))
            assert "to act" in shown(app, "board")
            for line in shown(app, "table").splitlines()[1:]:
                assert "?? ??" in line  # the bots' cards are hidden
            await pilot.press("q")
            await pilot.pause()

    asyncio.run(drive())


def test_the_coach_panel_shows_the_coachs_figures(tmp_path, full_db):
    session = Session.new(TableConfig(seats=2, opponents="station", stack=200, small_blind=1, big_blind=2, seed=3,
                                      coach=True), db=full_db, directory=tmp_path)
    app = PlayApp(session, pause=0)

    async def drive():
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(100):
                await pilot.pause()
                if session.view()["your_turn"]:
                    break
            coach = session.view()["coach"]
            text = shown(app, "coach")
            assert f"equity {coach['equity']:.4f}" in text and f"West's band {coach['band']}" in text
            assert f"pot odds {coach['pot_odds']:.4f}" in text
            await play_hand(app, pilot, calls)
            assert shown(app, "coach").startswith("review: net")
            await pilot.press("q")
            await pilot.pause()

    asyncio.run(drive())
    # what matchdb play prints after a coached session: the session report's figures, one line per player
    from matchdb.cli.tui import report_lines
    from matchdb.human.coach import session_report

    report = session_report(session.history_path, full_db)
    lines = report_lines(report)
    assert [line.split()[0] for line in lines[1:]] == list(report["players"])
    you = report["players"]["you"]
    assert lines[1 + list(report["players"]).index("you")].split()[1:4] == [str(you["hands"]), f"{you['vpip']:.3f}",
                                                                           f"{you['pfr']:.3f}"]


def test_play_options_are_checked_in_one_sentence(tmp_path, capsys):
    assert main(["play", "--blinds", "5-10", "--dir", str(tmp_path)]) == 2
    assert "--blinds is '5-10'; expected SMALL/BIG" in capsys.readouterr().err
    assert main(["play", "--seats", "11", "--dir", str(tmp_path)]) == 2
    assert "The seat count 11 is not a whole number 2..10." in capsys.readouterr().err
    assert main(["play", "--resume", "no-such-session-id-000", "--dir", str(tmp_path)]) == 2
    assert "No session 'no-such-session-id-000' is kept" in capsys.readouterr().err


def test_the_setup_form_chooses_the_table_and_refuses_a_bad_one_in_a_sentence():
    from matchdb.cli.tui import SetupApp

    app = SetupApp(TableConfig())

    async def drive():
        async with app.run_test(size=SIZE) as pilot:
            app.query_one("#seats", Input).value = "11"
            await pilot.click("#sit")
            await pilot.pause()
            assert shown(app, "message") == "The seat count 11 is not a whole number 2..10."
            app.query_one("#seats", Input).value = "3"
            app.query_one("#opponents", Input).value = "station,allin"
            app.query_one("#stack", Input).value = "300"
            app.query_one("#blinds", Input).value = "2/4"
            app.query_one("#game", Select).value = "sng"
            app.query_one("#coach", Checkbox).value = True
            await pilot.pause(0.3)  # a button ignores clicks during its 0.2 s pressed effect
            await pilot.click("#sit")
            await pilot.pause()
        return app.return_value

    config = asyncio.run(drive())
    assert config == TableConfig(seats=3, opponents=("station", "allin"), game="sng", stack=300, small_blind=2,
                                 big_blind=4, coach=True)


def _inside(app: PlayApp, widget_id: str) -> bool:
    """Whether the widget lies wholly on the screen and above the footer, where the pointer can reach it."""
    from textual.widgets import Footer

    widget, screen, footer = app.query_one(f"#{widget_id}"), app.screen.region, app.query_one(Footer).region
    return screen.contains_region(widget.region) and not widget.region.overlaps(footer) and widget.region.area > 0


CONTROLS = ("fold", "check", "call", "next", "leave", "half", "pot", "allin", "raise")


@pytest.mark.parametrize(("seats", "coach"), [(10, False), pytest.param(6, True, marks=pytest.mark.full_store)])
def test_every_button_and_the_amount_box_fit_80_by_24(tmp_path, seats, coach, request):
    """Issue 29: at 80 x 24 the second row of buttons and the amount box were below the screen. Now every button, with
    its whole label (ten-digit amounts: stacks of a billion chips), and the amount box lie on the screen, and a click
    reaches each: the amount typed there is bet."""
    db = request.getfixturevalue("full_db") if coach else None
    config = TableConfig(seats=seats, opponents="station", stack=10**9, small_blind=5 * 10**7, big_blind=10**8, seed=5,
                         coach=coach)
    session = Session.new(config, db=db, directory=tmp_path)
    app = PlayApp(session, pause=0)

    async def drive():
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(400):
                await pilot.pause()
                if session.view()["your_turn"]:
                    break
                await asyncio.sleep(0.01)
            await pilot.pause()  # the labels of the person's turn, laid out
            legal = session.view()["legal"]
            assert legal is not None and legal["raise"]
            for name in (*CONTROLS, "amount"):
                assert _inside(app, name), (name, app.query_one(f"#{name}").region)
            for name in CONTROLS:
                button = app.query_one(f"#{name}", Button)
                assert button.region.width >= len(str(button.label)) + 2, (name, button.label, button.region)
            assert str(app.query_one("#allin", Button).label) == f"All-in {legal['presets']['all_in']}"
            assert len(str(legal["presets"]["all_in"])) == 10
            assert "your turn" in shown(app, "board") and _inside(app, "board") and _inside(app, "message")
            before = len(session.view()["log"])
            await pilot.click("#amount")
            assert app.focused is app.query_one("#amount", Input)
            await pilot.press(*str(legal["min_raise_to"]), "enter")
            await pilot.pause()
            entry = session.view()["log"][before]
            assert (entry["name"], entry["action"], entry["amount"]) == ("you", "raise", legal["min_raise_to"])
            await pilot.click("#leave")
            await pilot.pause()
        return app.return_value

    summary = asyncio.run(drive())
    assert summary is not None and summary["left"]


def test_the_first_wager_of_a_street_is_a_bet_and_the_person_is_you(tmp_path):
    """Issue 29: the log said 'you: raise 6' for the flop's first wager and the result 'you shows'. Now a street's first
    wager after the flop is a bet (preflop the big blind is the bet), and sentences about the person say 'you'."""
    session = table(tmp_path, seats=2, opponents="station")
    app = PlayApp(session, pause=0)

    def choose(view):
        if view["street"] != "preflop" and view["legal"]["raise"] and view["legal"]["bet"]:
            return "pot"  # the flop's, turn's and river's first wager
        return "call" if view["legal"]["call"] else "check"

    async def drive():
        async with app.run_test(size=SIZE) as pilot:
            await play_hand(app, pilot, choose)
            view = session.view()
            log, message = shown(app, "log"), shown(app, "message")
            await pilot.press("q")
            await pilot.pause()
            return view, log, message

    view, log, message = asyncio.run(drive())
    wagers = [e for e in view["log"] if e["action"] in ("bet", "raise")]
    assert wagers and all(e["action"] == "bet" and e["street"] != "preflop" and e["name"] == "you" for e in wagers)
    for entry in view["log"][-6:]:
        assert log_line(view, entry) in log.splitlines()
    assert f"{wagers[-1]['street']:7} you bet {wagers[-1]['amount']}" in log
    assert "you fold" not in log and "you: " not in log
    assert view["last"]["showdown"] and message == result_line(view)  # the station called down: cards shown
    assert f"you show {' '.join(view['hole'])}; station shows " in message and "you shows" not in message
    assert re.search(r"(you win|station wins) \d+", message) and "you wins" not in message
    # a raise after a bet on the same street, and folds, as the person and as a bot
    entries = [{"street": "turn", "seat": 1, "name": "station", "action": "bet", "amount": 10},
               {"street": "turn", "seat": 0, "name": "you", "action": "raise", "amount": 30},
               {"street": "turn", "seat": 1, "name": "station", "action": "fold", "amount": 0},
               {"street": "river", "seat": 0, "name": "you", "action": "fold", "amount": 0}]
    assert [log_line(view, e) for e in entries] == ["turn    station bets 10", "turn    you raise to 30",
                                                    "turn    station folds", "river   you fold"]
