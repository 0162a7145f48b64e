"""``matchdb play``: a person at a table of bots in the terminal (a textual app over :class:`matchdb.human.Session`).

The app shows what :meth:`matchdb.human.Session.view` gives the person and
nothing more: every seat (name, stack, bet this round, folded or all-in, the
button, the person's cards, a bot's cards only after a showdown it reached),
the board, the pot, the hand's actions, and, with the coach on, the coach's
figures for the decision (exact equity, pot odds, rate of return, West's
band and chances, what each built-in bot would do) and after each hand its
review. The person plays with buttons or keys:

==========  =================================================================
key         action
==========  =================================================================
``f``       fold
``c``       check, or call what there is to call
``h``       bet or raise half the pot (the session's preset)
``p``       bet or raise the pot
``a``       all-in
``r``       bet or raise to the amount typed in the amount box
``n``       next hand (once the hand is over)
``q``       leave: the hand in play is folded, the session kept for ``--resume``
==========  =================================================================

Bots act one at a time after a short pause (``pause`` seconds, so each
action can be seen); a refused action (out of turn, outside the legal sizes)
is shown in one sentence and changes nothing. Every finished hand is already
in the session's PHH file when the next is dealt, so quitting loses at most
the hand in play.

>>> import tempfile
>>> from matchdb.human import Session, TableConfig
>>> session = Session.new(TableConfig(seats=2, opponents="station", stack=100, small_blind=1, big_blind=2, seed=1),
...                       directory=tempfile.mkdtemp())
>>> app = PlayApp(session, pause=0)
>>> app.session.view()["hand"]
1
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.timer import Timer
from textual.widgets import Button, Checkbox, Footer, Input, Select, Static

from matchdb.errors import MatchdbError
from matchdb.human import Session, TableConfig

__all__ = ["PlayApp", "SetupApp", "log_line", "report_lines", "result_line", "seat_lines"]

_PRESETS = {"half": "half_pot", "pot": "pot", "allin": "all_in"}

#: How a sentence says each action of the log: (the person's verb, a bot's verb); the amount follows.
_VERBS = {
    "fold": ("fold", "folds"), "check": ("check", "checks"), "call": ("call", "calls"), "bet": ("bet", "bets"),
    "raise": ("raise to", "raises to"), "small blind": ("post the small blind", "posts the small blind"),
    "big blind": ("post the big blind", "posts the big blind"), "ante": ("post an ante of", "posts an ante of"),
}


def _who(view: dict[str, Any], seat: int) -> tuple[str, int]:
    """The name a sentence gives a seat (``you`` for the person) and the form of its verb (0: the person's)."""
    return ("you", 0) if seat == view["human_seat"] else (view["names"][seat], 1)


def log_line(view: dict[str, Any], entry: dict[str, Any]) -> str:
    """One action of a session view's log as the table says it: the street, then who did what.

    >>> view = {"human_seat": 0, "names": ["you", "station"]}
    >>> log_line(view, {"street": "flop", "seat": 0, "name": "you", "action": "bet", "amount": 10})
    'flop    you bet 10'
    >>> log_line(view, {"street": "flop", "seat": 1, "name": "station", "action": "raise", "amount": 30})
    'flop    station raises to 30'
    >>> log_line(view, {"street": "turn", "seat": 0, "name": "you", "action": "fold", "amount": 0})
    'turn    you fold'
    """
    name, form = _who(view, entry["seat"])
    verb = _VERBS.get(entry["action"], (entry["action"], entry["action"]))[form]
    return f"{entry['street']:7} {name} {verb}{' ' + str(entry['amount']) if entry['amount'] else ''}"


def result_line(view: dict[str, Any]) -> str:
    """The last hand's result as the table says it: who wins what, the cards shown (the person's own cards, held,
    when the person did not show them), the person's net.

    >>> view = {"human_seat": 0, "names": ["you", "station"], "over": False, "last": {"hand": 3, "winners": [0],
    ...         "won": [40, 0], "showdown": True, "shown": {"0": ["Ah", "Kd"], "1": ["Qs", "Qd"]}, "net": [20, -20]}}
    >>> result_line(view)
    'hand 3: you win 40. you show Ah Kd; station shows Qs Qd. You +20.  n: next hand.'
    >>> view["last"] |= {"winners": [1], "won": [0, 3], "showdown": False, "shown": {"0": ["7c", "2d"]}, "net": [-1, 1]}
    >>> result_line(view)
    'hand 3: station wins 3. you held 7c 2d. You -1.  n: next hand.'
    """
    last = view["last"]
    sentences = [", ".join(f"{_who(view, s)[0]} {('win', 'wins')[_who(view, s)[1]]} {last['won'][s]}"
                           for s in last["winners"])]
    human = view["human_seat"]
    folded = any(entry["seat"] == human and entry["action"] == "fold" for entry in view.get("log") or [])
    shown = []
    for seat, cards in last["shown"].items():
        name, form = _who(view, int(seat))
        if last["showdown"] and not (form == 0 and folded):
            shown.append(f"{name} {('show', 'shows')[form]} {' '.join(cards)}")
        elif form == 0:
            shown.append(f"you held {' '.join(cards)}")
    sentences.append("; ".join(shown))
    net = last["net"][view["human_seat"]]
    sentences.append(f"You {'+' if net >= 0 else ''}{net}")
    end = "  The sit-and-go is over: q leaves." if view["over"] else "  n: next hand."
    return f"hand {last['hand']}: " + ". ".join(s for s in sentences if s) + "." + end


def seat_lines(view: dict[str, Any]) -> list[str]:
    """One line per seat of a session view: marker, name, stack, bet, cards and state (what the table shows).

    >>> view = {"actor": 1, "seats": [
    ...     {"seat": 0, "name": "you", "stack": 98, "bet": 2, "dealt": True, "folded": False, "all_in": False,
    ...      "button": False, "cards": ["Ah", "Kd"], "human": True, "out": False},
    ...     {"seat": 1, "name": "station", "stack": 99, "bet": 1, "dealt": True, "folded": False, "all_in": False,
    ...      "button": True, "cards": None, "human": False, "out": False}]}
    >>> for line in seat_lines(view): print(line)
      you           stack     98  bet     2  Ah Kd
    > station (D)   stack     99  bet     1  ?? ??
    """
    lines = []
    for seat in view["seats"]:
        marker = ">" if view.get("actor") == seat["seat"] else " "
        name = seat["name"] + (" (D)" if seat["button"] else "")
        if seat["out"] or not seat["dealt"]:
            cards, state = "", "out" if seat["stack"] == 0 else "sitting out"
        else:
            cards = " ".join(seat["cards"]) if seat["cards"] else "?? ??"
            state = "folded" if seat["folded"] else "all-in" if seat["all_in"] else ""
        line = f"{marker} {name:13} stack {seat['stack']:6}  bet {seat['bet']:5}  {cards}"
        lines.append((line + (f"  {state}" if state else "")).rstrip())
    return lines


def report_lines(report: dict[str, Any]) -> list[str]:
    """The coach's session report (:func:`matchdb.human.coach.session_report`) as a table, one line per player.

    >>> report = {"hands": 2, "players": {"you": {"hands": 2, "vpip": 0.5, "pfr": 0.5, "aggression": None,
    ...           "bb_per_100": 150.0, "adjusted_bb_per_100": 75.0, "allins_adjusted": 1}}}
    >>> for line in report_lines(report): print(line)
    player          hands   VPIP    PFR    AF    bb/100  adj bb/100
    you                 2  0.500  0.500     -     150.0        75.0
    """

    def number(value: float | None, form: str) -> str:
        return "-" if value is None else format(value, form)

    lines = [f"{'player':14} {'hands':>6} {'VPIP':>6} {'PFR':>6} {'AF':>5} {'bb/100':>9} {'adj bb/100':>11}"]
    for name, p in report["players"].items():
        lines.append(f"{name[:14]:14} {p['hands']:6d} {number(p['vpip'], '.3f'):>6} {number(p['pfr'], '.3f'):>6} "
                     f"{number(p['aggression'], '.2f'):>5} {number(p['bb_per_100'], '.1f'):>9} "
                     f"{number(p['adjusted_bb_per_100'], '.1f'):>11}")
    return lines


def _coach_text(coach: dict[str, Any]) -> str:
    rr = coach["rate_of_return"]
    west = coach["west"]
    lines = [
        f"equity {coach['equity']:.4f} ({coach['method']}, {coach['model']} opponents)",
        f"pot odds {coach['pot_odds']:.4f} (for a {coach['odds_for']}), rate of return "
        f"{'inf' if rr is None else f'{rr:.3f}'}, West's band {coach['band']}",
        f"West: fold {west['fold']:.2f} call {west['call']:.2f} raise {west['raise']:.2f} "
        f"(likeliest: {coach['west_likeliest']})",
        "bots here: " + ", ".join(f"{name} {choice}" for name, choice in coach["bots"].items()),
    ]
    return "\n".join(lines)


def _review_text(review: dict[str, Any]) -> str:
    lines = [f"review: net {review['net']:+d}"]
    for row in review["decisions"]:
        rr = row["rate_of_return"]
        lines.append(f"  {row['street']:7} {row['action']}{' ' + str(row['amount']) if row['amount'] else ''}: "
                     f"equity {row['equity']:.3f}, rr {'inf' if rr is None else f'{rr:.2f}'}, band {row['band']}, "
                     f"West would {row['west_likeliest']}{'' if row['west_agrees'] else ' (not you)'}")
    return "\n".join(lines)


class SetupApp(App[TableConfig | None]):
    """The table chooser of ``matchdb play --setup``: seats, opponents, game, stack, blinds, coach; returns the config.

    Starts from ``defaults`` (the command's options); a setting the table
    refuses is shown in one sentence and the form stays; Escape returns None.
    """

    TITLE = "matchdb play: choose a table"
    AUTO_FOCUS = "#seats"
    CSS = """
    Horizontal { height: auto; }
    .label { width: 22; padding: 1 1; }
    #opponents { width: 60; }
    #message { height: auto; padding: 0 1; color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "quit_setup", "quit")]

    def __init__(self, defaults: TableConfig) -> None:
        super().__init__()
        self.defaults = defaults

    def compose(self) -> ComposeResult:
        d = self.defaults
        rows: list[tuple[str, Any]] = [
            ("seats (2-10)", Input(str(d.seats), id="seats", type="integer")),
            ("opponents", Input(",".join(d.opponents), id="opponents")),
            ("game", Select([("cash game", "cash"), ("sit-and-go", "sng")], value=d.game, allow_blank=False,
                            id="game")),
            ("starting stack", Input(str(d.stack), id="stack", type="integer")),
            ("blinds (cash)", Input(f"{d.small_blind}/{d.big_blind}", id="blinds")),
        ]
        for label, widget in rows:
            with Horizontal():
                yield Static(label, classes="label")
                yield widget
        yield Checkbox("coach", d.coach, id="coach")
        yield Button("Sit down", id="sit", variant="success")
        yield Static(id="message")
        yield Footer()

    def config(self) -> TableConfig:
        """The table the form describes (a :class:`matchdb.human.SessionError` when a setting is refused)."""
        from matchdb.human import SessionError

        values = {name: self.query_one(f"#{name}", Input).value.strip() for name in ("seats", "stack", "blinds")}
        for name in ("seats", "stack"):
            if not values[name].isdigit():
                raise SessionError(f"The {name} {values[name]!r} is not a whole number.")
        small, slash, big = values["blinds"].partition("/")
        if not slash or not small.strip().isdigit() or not big.strip().isdigit():
            raise SessionError(f"The blinds {values['blinds']!r} are not SMALL/BIG in whole chips, like 5/10.")
        game = self.query_one("#game", Select).value
        data = self.defaults.to_dict() | {
            "seats": int(values["seats"]), "stack": int(values["stack"]), "small_blind": int(small),
            "big_blind": int(big), "opponents": self.query_one("#opponents", Input).value,
            "game": game if isinstance(game, str) else "cash", "coach": self.query_one("#coach", Checkbox).value}
        return TableConfig.from_dict(data)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "sit":
            try:
                self.exit(self.config())
            except MatchdbError as error:
                self.query_one("#message", Static).update(Text(str(error)))

    def action_quit_setup(self) -> None:
        """Leave without a table."""
        self.exit(None)


class PlayApp(App[dict[str, Any]]):
    """The terminal table over one :class:`matchdb.human.Session`; returns the session's summary on leaving."""

    TITLE = "matchdb play"
    # Fits an 80 x 24 terminal: the seats, log and coach scroll in the space left above the board line, the
    # message and three rows of one-line buttons, so every button and the amount box stay on the screen, with
    # amounts of ten digits on the buttons (stacks go up to a billion chips).
    CSS = """
    #top { height: 1; background: $boost; }
    #main { height: 1fr; }
    #table { height: auto; border: round $primary; padding: 0 1; }
    #log { height: 8; border: round $secondary; padding: 0 1; }
    #coach { height: auto; border: round $success; padding: 0 1; }
    #board { height: auto; padding: 0 1; }
    #message { height: auto; padding: 0 1; color: $warning; }
    #controls, #presets, #more { height: 1; margin: 0 0 0 1; }
    #controls Button, #presets Button, #more Button { height: 1; min-width: 4; border: none; padding: 0 1; margin: 0 1 0 0; }
    #amount { width: 14; height: 1; border: none; padding: 0 1; margin: 0 1 0 0; }
    """
    AUTO_FOCUS = None  # nothing focused at first, so the keys below act (the amount box takes them once clicked)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "fold", "fold"),
        Binding("c", "check_call", "check/call"),
        Binding("h", "preset('half')", "half pot"),
        Binding("p", "preset('pot')", "pot"),
        Binding("a", "preset('allin')", "all-in"),
        Binding("r", "raise_to", "raise to amount"),
        Binding("n", "next_hand", "next hand"),
        Binding("q", "leave", "leave"),
    ]

    def __init__(self, session: Session, pause: float = 0.6) -> None:
        super().__init__()
        self.session = session
        self.pause = float(pause)
        self.message = ""
        self._timer: Timer | None = None

    # -- layout ---------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="top")
        with VerticalScroll(id="main"):
            yield Static(id="table")
            yield Static(id="log")
            if self.session.config.coach:
                yield Static(id="coach")
        yield Static(id="board")
        yield Static(id="message")
        with Horizontal(id="controls"):
            yield Button("Fold", id="fold", variant="error")
            yield Button("Check", id="check")
            yield Button("Call", id="call", variant="primary")
            yield Button("Next hand", id="next")
            yield Button("Leave", id="leave")
        with Horizontal(id="presets"):
            yield Button("1/2 pot", id="half")
            yield Button("Pot", id="pot")
            yield Button("All-in", id="allin", variant="warning")
        with Horizontal(id="more"):
            yield Input(placeholder="amount", id="amount", type="integer")
            yield Button("Raise to", id="raise", variant="success")
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    # -- showing the view -------------------------------------------------------------------------------

    def show(self) -> None:
        """Draw the session's view, enable the legal actions, and let the next bot act after the pause."""
        view = self.session.view()
        blinds = view["blinds"]
        ante = f" ante {blinds['ante']}" if blinds["ante"] else ""
        self.query_one("#top", Static).update(Text(
            f"{view['game']} hand {view['hand']}  blinds {blinds['small_blind']}/{blinds['big_blind']}{ante}  "
            f"session {view['id']}"))
        self.query_one("#table", Static).update(Text("\n".join(seat_lines(view))))
        board = " ".join(view["board"]) or "-"
        turn = "your turn" if view["your_turn"] else "hand over" if view["hand_over"] else (
            f"{view['names'][view['actor']]} to act" if view["actor"] is not None else "")
        self.query_one("#board", Static).update(Text(f"board {board}   pot {view['pot']}   {view['street']}   {turn}"))
        log = [log_line(view, entry) for entry in view["log"]]
        self.query_one("#log", Static).update(Text("\n".join(log[-6:])))
        if self.session.config.coach:
            coach = view.get("coach")
            last = view.get("last") or {}
            text = _coach_text(coach) if coach else _review_text(last["review"]) if view["hand_over"] and \
                last.get("review") else ""
            self.query_one("#coach", Static).update(Text(text or "coach: figures come on your turn"))
        failed = [e for e in view.get("bot_errors") or [] if e["hand"] == view["hand"]]  # this hand's
        failure = f"  ({failed[-1]['name']} failed and folded: {failed[-1]['error']})" if failed else ""
        self.query_one("#message", Static).update(Text((self.message or self._result(view)) + failure))
        self._enable(view)
        if not view["hand_over"] and not view["your_turn"] and self._timer is None:
            self._timer = self.set_timer(max(self.pause, 0.001), self._bot_acts)  # textual divides by the delay

    def _result(self, view: dict[str, Any]) -> str:
        if not view["hand_over"] or not view.get("last"):
            return ""
        return result_line(view)

    def _enable(self, view: dict[str, Any]) -> None:
        legal = view["legal"] if view["your_turn"] else None
        can = {
            "fold": bool(legal and legal["fold"]),
            "check": bool(legal and legal["check"]),
            "call": bool(legal and legal["call"] > 0),
            "half": bool(legal and legal["raise"]),
            "pot": bool(legal and legal["raise"]),
            "allin": bool(legal and legal["raise"]),
            "raise": bool(legal and legal["raise"]),
            "next": bool(view["hand_over"] and not view["over"] and not view["left"]),
            "leave": True,
        }
        for name, enabled in can.items():
            self.query_one(f"#{name}", Button).disabled = not enabled
        if legal:
            self.query_one("#call", Button).label = f"Call {legal['call']}" if legal["call"] else "Call"
            verb = "Bet" if legal["bet"] else "Raise"
            self.query_one("#raise", Button).label = f"{verb} to ({legal['min_raise_to']}-{legal['max_raise_to']})" \
                if legal["raise"] else verb
            for button, key in _PRESETS.items():
                amount = legal["presets"].get(key)
                title = {"half": "1/2 pot", "pot": "Pot", "allin": "All-in"}[button]
                self.query_one(f"#{button}", Button).label = f"{title} {amount}" if amount is not None else title
            for name in ("call", "raise", *_PRESETS):  # a new label's width: textual lays a button out again only when asked
                self.query_one(f"#{name}", Button).refresh(layout=True)

    def _bot_acts(self) -> None:
        self._timer = None
        if self.session.step() is not None:
            self.message = ""
        self.show()

    # -- the person's actions -----------------------------------------------------------------------------

    def _act(self, kind: str, amount: int | None = None) -> None:
        try:
            self.session.act(kind, amount)
            self.message = ""
        except MatchdbError as error:
            self.message = str(error)
        self.show()

    def action_fold(self) -> None:
        """Fold (refused, with its sentence, when there is nothing to call)."""
        self._act("fold")

    def action_check_call(self) -> None:
        """Check, or call what there is to call."""
        view = self.session.view()
        legal = view["legal"]
        if legal is None:
            self._act("check")  # not the person's turn: the session says why
        else:
            self._act("call" if legal["call"] > 0 else "check")

    def action_preset(self, which: str) -> None:
        """Bet or raise to a preset: ``half`` pot, ``pot`` or ``allin``."""
        legal = self.session.view()["legal"]
        if legal is None or not legal["raise"]:
            self._act("raise", 0)
            return
        self._act("bet" if legal["bet"] else "raise", int(legal["presets"][_PRESETS[which]]))

    def action_raise_to(self) -> None:
        """Bet or raise to the amount typed in the amount box."""
        text = self.query_one("#amount", Input).value.strip()
        legal = self.session.view()["legal"]
        kind = "bet" if legal is not None and legal["bet"] else "raise"
        if not text.isdigit():
            self.message = f"The amount {text!r} is not a whole number of chips; type the total to {kind} to."
            self.show()
            return
        self._act(kind, int(text))

    def action_next_hand(self) -> None:
        """Deal the next hand."""
        try:
            self.session.next_hand()
            self.message = ""
        except MatchdbError as error:
            self.message = str(error)
        self.show()

    def action_leave(self) -> None:
        """Fold the hand in play, keep the session and quit with its summary."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.exit(self.session.leave())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions = {"fold": self.action_fold, "check": self.action_check_call, "call": self.action_check_call,
                   "raise": self.action_raise_to, "next": self.action_next_hand, "leave": self.action_leave}
        name = event.button.id or ""
        if name in _PRESETS:
            self.action_preset(name)
        elif name in actions:
            actions[name]()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.set_focus(None)  # the keys act again
        self.action_raise_to()
