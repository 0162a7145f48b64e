"""The action tree of a heads-up postflop spot: who may do what, and for how many chips, from the tree options.

The tree does not know the cards: a chance node (the turn or the river being
dealt) has one child, the first action node of the next street, which the
game repeats for every card. Its rules are postflop-solver's (``action_tree.rs``),
so that the two solvers solve the same tree from the same options:

- the out-of-position player (OOP, player 0) acts first on every street;
- facing no bet a player may check or bet each of their bet sizes; facing a
  bet, fold, call or raise each raise size (no raise after an all-in);
- a bet of pot share p is ``round(p x pot)`` chips; a raise of pot share p is the
  last bet plus ``round(p x pot after calling)``; ``2.5x`` is ``round(2.5 x last bet)``;
  the geometric size ``e`` is the share of the pot that, bet on each of the
  streets left (less the raises already made), gets the stacks in exactly;
  amounts are whole chips, rounded half away from zero;
- all-in is added when it is at most ``add_allin`` (1.5) pots above the last bet;
- a bet or raise is clamped to the legal range (a raise at least the last raise
  again); one that would leave the stack-to-pot ratio after a call at most
  ``force_allin`` (0.15) becomes all-in;
- sizes closer than ``merge`` (10 %) are merged, keeping the larger, as
  PioSOLVER does: going down from the largest, a size X (share of the pot) is
  dropped when (1 + largest kept) / (1 + X) < 1 + merge;
- donk sizes (``donk``), where given, replace OOP's bet sizes on the turn or
  river after OOP called the street before;
- actions are listed fold, check, call, then bets, raises and all-in by amount.

>>> tree = build_tree(TreeOptions(street=1, pot=200, stack=900, sizes=uniform_sizes("60%, e, a", "2.5x")))
>>> [str(a) for a in tree.root.actions]
['Check', 'Bet 120', 'Bet 216', 'All-in 900']
>>> [str(a) for a in tree.root.children[1].actions]
['Fold', 'Call', 'Raise 300']
>>> tree.counts()
{'flop': 0, 'turn': 18, 'river': 58}
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from matchdb.solver.sizes import BetSize, SolverError, parse_sizes

__all__ = [
    "STREETS",
    "OOP",
    "IP",
    "Action",
    "TreeOptions",
    "Node",
    "ActionTree",
    "build_tree",
    "uniform_sizes",
    "street_sizes",
    "donk_sizes",
    "parse_action",
    "round_half_away",
]

STREETS = ("flop", "turn", "river")
OOP, IP = 0, 1
PLAYERS = ("OOP", "IP")

_ACTION_NAMES = ("Fold", "Check", "Call", "Bet", "Raise", "All-in")
FOLD, CHECK, CALL, BET, RAISE, ALLIN = range(6)


@dataclass(frozen=True, order=True)
class Action:
    """An action: ``kind`` 0..5 (fold, check, call, bet, raise, all-in) and, for the last three, the amount
    (chips the player has put in on this street after the action). Sorted as postflop-solver sorts them."""

    kind: int
    amount: int = 0

    @property
    def name(self) -> str:
        return _ACTION_NAMES[self.kind].lower()

    @property
    def is_bet(self) -> bool:
        return self.kind >= BET

    def __str__(self) -> str:
        return _ACTION_NAMES[self.kind] + (f" {self.amount}" if self.kind >= BET else "")

    def __repr__(self) -> str:
        return f"Action({str(self)!r})"


def parse_action(text: str) -> Action:
    """An action written as :class:`Action` prints it, in any case: ``'check'``, ``'bet 120'``, ``'All-in 900'``.

    An all-in may leave out its amount (``'all-in'``, ``'allin'``); it then
    matches the all-in of any amount (amount -1).

    >>> parse_action("Bet 120"), parse_action("all-in")
    (Action('Bet 120'), Action('All-in -1'))
    """
    words = str(text).strip().lower().replace("all in", "all-in").replace("allin", "all-in").split()
    names = [n.lower() for n in _ACTION_NAMES]
    if not words or words[0] not in names or len(words) > 2:
        raise SolverError(f"The action {text!r} does not parse; expected fold, check, call, 'bet N', 'raise N' or 'all-in'.")
    kind = names.index(words[0])
    if kind < BET:
        if len(words) != 1:
            raise SolverError(f"The action {text!r} has an amount, which a {words[0]} has not; expected {words[0]!r} alone.")
        return Action(kind)
    if len(words) == 1:
        if kind == ALLIN:
            return Action(ALLIN, -1)
        raise SolverError(f"The action {text!r} lacks its amount; expected one like '{words[0]} 120'.")
    if not words[1].isdigit():
        raise SolverError(f"The action {text!r} has the amount {words[1]!r}; expected a whole number of chips.")
    return Action(kind, int(words[1]))


def round_half_away(x: float) -> int:
    """``x`` rounded to a whole number, halves away from zero (Rust's ``f64::round``, not Python's banker's ``round``).

    >>> round_half_away(2.5), round_half_away(3.5), round(2.5)
    (3, 4, 2)
    """
    if x < 0:
        return -round_half_away(-x)
    low = math.floor(x)
    return int(low) + (1 if x - low >= 0.5 else 0)


#: Sizes of one player on one street: (bet sizes, raise sizes).
PlayerSizes = tuple[tuple[BetSize, ...], tuple[BetSize, ...]]


def uniform_sizes(bet: str, raise_: str) -> tuple[tuple[PlayerSizes, PlayerSizes], ...]:
    """The same bet and raise sizes for both players on every street, as :class:`TreeOptions` takes them.

    >>> [str(s) for s in uniform_sizes("50%, a", "3x")[2][1][0]]
    ['50%', 'a']
    """
    player = (parse_sizes(bet), parse_sizes(raise_, raise_=True))
    return ((player, player),) * 3


@dataclass(frozen=True)
class TreeOptions:
    """What the tree is built from.

    ``street``: where play starts (0 flop, 1 turn, 2 river); ``pot`` and
    ``stack``: the starting pot and the effective stack, in whole chips;
    ``sizes[street][player]``: (bet sizes, raise sizes); ``donk``: OOP's
    donk sizes on the turn and the river (None: OOP's bet sizes); the three
    thresholds as in the module's docstring; ``rake_rate`` and ``rake_cap``:
    the share of the pot taken at the end (folds included) and its most,
    in chips.
    """

    street: int
    pot: int
    stack: int
    sizes: tuple[tuple[PlayerSizes, PlayerSizes], ...]
    donk: tuple[tuple[BetSize, ...] | None, tuple[BetSize, ...] | None] = (None, None)
    add_allin: float = 1.5
    force_allin: float = 0.15
    merge: float = 0.1
    rake_rate: float = 0.0
    rake_cap: float = 0.0

    def __post_init__(self) -> None:
        if self.street not in (0, 1, 2):
            raise SolverError(f"The street {self.street!r} is not 0 (flop), 1 (turn) or 2 (river).")
        for name in ("pot", "stack"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0 or value >= 2**31:
                what = "starting pot" if name == "pot" else "effective stack"
                raise SolverError(f"The {what} {value!r} is not a positive whole number of chips; expected an integer 1..2^31-1.")
        for name, text in (("add_allin", "add-all-in threshold"), ("force_allin", "force-all-in threshold"),
                           ("merge", "merging threshold")):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
                raise SolverError(f"The {text} {value!r} is not a number of at least 0.")
        if not isinstance(self.rake_rate, (int, float)) or isinstance(self.rake_rate, bool) or not 0 <= self.rake_rate <= 1:
            raise SolverError(f"The rake rate {self.rake_rate!r} is not a share 0..1 of the pot (0.05 for 5 %).")
        if (not isinstance(self.rake_cap, (int, float)) or isinstance(self.rake_cap, bool) or not math.isfinite(self.rake_cap)
                or self.rake_cap < 0):
            raise SolverError(f"The rake cap {self.rake_cap!r} is not a number of chips of at least 0.")

    @property
    def raked(self) -> bool:
        return self.rake_rate > 0 and self.rake_cap > 0

    def with_(self, **changes: Any) -> TreeOptions:
        return replace(self, **changes)


@dataclass(eq=False)
class Node:
    """A node of the action tree.

    ``kind``: ``'action'`` (``player`` acts), ``'fold'`` (``player`` folded),
    ``'showdown'`` or ``'chance'`` (the next street's card is dealt; its one
    child is the next street's first node). ``amount``: chips each player has
    matched (the pot is the starting pot plus twice this); ``bet``: chips the
    player to act has put in on this street after its last action's opponent
    bet (the amount to call is ``to_call``).
    """

    kind: str
    player: int
    street: int
    amount: int
    actions: list[Action] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    parent: Node | None = field(default=None, repr=False)
    to_call: int = 0
    stacks: tuple[int, int] = (0, 0)
    index: int = -1  # position in ActionTree.nodes (preorder)

    @property
    def terminal(self) -> bool:
        return self.kind in ("fold", "showdown")

    def pot(self, starting_pot: int) -> int:
        return starting_pot + 2 * self.amount


@dataclass
class _Info:
    """What building a node needs to know of the line to it (postflop-solver's ``BuildTreeInfo``)."""

    prev_action: Action | None = None  # None at the root; the chance "action" is _CHANCE
    num_bets: int = 0
    allin: bool = False
    oop_called: bool = False
    stacks: tuple[int, int] = (0, 0)
    prev_amount: int = 0

    def next(self, player: int, action: Action | None) -> _Info:
        info = replace(self, prev_action=action)
        if action is _CHANCE or action is None:
            return info
        stacks = list(self.stacks)
        if action.kind == CHECK:
            info.oop_called = False
        elif action.kind == CALL:
            info.num_bets = 0
            info.oop_called = player == OOP
            stacks[player] = stacks[player ^ 1]
            info.prev_amount = 0
        elif action.kind >= BET:
            to_call = stacks[player] - stacks[player ^ 1]
            info.num_bets += 1
            info.allin = action.kind == ALLIN
            stacks[player] -= action.amount - self.prev_amount + to_call
            info.prev_amount = action.amount
        info.stacks = (stacks[0], stacks[1])
        return info


_CHANCE = Action(-1)


class ActionTree:
    """The action tree of :class:`TreeOptions`: ``root``, every node in preorder (``nodes``), and their counts."""

    def __init__(self, options: TreeOptions, root: Node) -> None:
        self.options = options
        self.root = root
        self.nodes: list[Node] = list(_preorder(root))
        for position, node in enumerate(self.nodes):
            node.index = position

    def counts(self) -> dict[str, int]:
        """Action nodes per street (the shape postflop-solver reports, before cards multiply them)."""
        found = dict.fromkeys(STREETS, 0)
        for node in self.nodes:
            if node.kind == "action":
                found[STREETS[node.street]] += 1
        return found

    def lines(self) -> list[str]:
        """Every action node as its line of actions from the root (chance nodes written ``'-'``), in preorder."""
        return [" ".join(_line(node)) or "(root)" for node in self.nodes if node.kind == "action"]

    def describe(self) -> list[tuple[str, list[str]]]:
        """(line, available actions) of every action node, in preorder: what a test compares with the peer."""
        return [(" ".join(_line(n)), [str(a) for a in n.actions]) for n in self.nodes if n.kind == "action"]


def _line(node: Node) -> list[str]:
    steps = []
    while node.parent is not None:
        parent = node.parent
        steps.append("-" if parent.kind == "chance" else str(parent.actions[parent.children.index(node)]))
        node = parent
    return steps[::-1]


def _preorder(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def build_tree(options: TreeOptions) -> ActionTree:
    """Build the action tree of ``options`` (see the module's docstring for the rules)."""
    root = Node("action", OOP, options.street, 0, stacks=(options.stack, options.stack))
    _build(options, root, _Info(stacks=(options.stack, options.stack)))
    return ActionTree(options, root)


def _build(options: TreeOptions, node: Node, info: _Info) -> None:
    if node.terminal:
        return
    if node.kind == "chance":
        if not info.allin:
            child = Node("action", OOP, node.street + 1, node.amount, stacks=info.stacks)
        elif node.street == 0:
            child = Node("chance", -1, 1, node.amount, stacks=info.stacks)
        else:
            child = Node("showdown", -1, 2, node.amount, stacks=info.stacks)
        child.parent = node
        node.actions = [_CHANCE]
        node.children = [child]
        _build(options, child, info.next(0, _CHANCE))
        return
    _push_actions(options, node, info)
    for action, child in zip(node.actions, node.children, strict=True):
        _build(options, child, info.next(node.player, action))


def _push_actions(options: TreeOptions, node: Node, info: _Info) -> None:
    player, opponent = node.player, node.player ^ 1
    player_stack, opponent_stack = info.stacks[player], info.stacks[opponent]
    prev_amount = info.prev_amount
    to_call = player_stack - opponent_stack
    node.to_call = to_call
    pot = options.pot + 2 * (node.amount + to_call)
    max_amount = opponent_stack + prev_amount
    min_amount = min(max(prev_amount + to_call, 1), max_amount)
    spr_after_call = opponent_stack / pot
    remaining_streets = 3 - node.street

    def geometric(streets: int, largest: float) -> int:
        ratio = ((2.0 * spr_after_call + 1.0) ** (1.0 / streets) - 1.0) / 2.0
        return round_half_away(pot * min(ratio, largest))

    bet_sizes, raise_sizes = options.sizes[node.street][player]
    donk = options.donk[node.street - 1] if node.street >= 1 else None
    actions: list[Action] = []
    if info.prev_action is None or info.prev_action is _CHANCE or info.prev_action.kind == CHECK:
        leading = donk if (donk is not None and info.prev_action is _CHANCE and info.oop_called) else bet_sizes
        actions.append(Action(CHECK))
        for size in leading:
            if size.kind == "pot":
                actions.append(Action(BET, round_half_away(pot * size.value)))
            elif size.kind == "chips":
                actions.append(Action(BET, int(size.value)))
            elif size.kind == "geometric":
                actions.append(Action(BET, geometric(int(size.value) or remaining_streets, size.extra)))
            elif size.kind == "allin":
                actions.append(Action(ALLIN, max_amount))
            else:  # a multiple of the last bet: refused by parse_sizes for bets
                raise SolverError(f"The bet size {str(size)!r} is a multiple of the last bet, which only a raise can be.")
        if max_amount <= round_half_away(pot * options.add_allin):
            actions.append(Action(ALLIN, max_amount))
    else:
        actions.append(Action(FOLD))
        actions.append(Action(CALL))
        if not info.allin:
            for size in raise_sizes:
                if size.kind == "pot":
                    actions.append(Action(RAISE, prev_amount + round_half_away(pot * size.value)))
                elif size.kind == "prev":
                    actions.append(Action(RAISE, round_half_away(prev_amount * size.value)))
                elif size.kind == "chips":
                    if size.extra == 0 or info.num_bets <= size.extra:
                        actions.append(Action(RAISE, prev_amount + int(size.value)))
                elif size.kind == "geometric":
                    streets = max((int(size.value) or remaining_streets) - info.num_bets + 1, 1)
                    actions.append(Action(RAISE, prev_amount + geometric(streets, size.extra)))
                else:
                    actions.append(Action(ALLIN, max_amount))
            if max_amount <= prev_amount + round_half_away(pot * options.add_allin):
                actions.append(Action(ALLIN, max_amount))

    def forced_allin(amount: int) -> bool:
        new_pot = pot + 2 * (amount - prev_amount)
        return max_amount <= amount + round_half_away(new_pot * options.force_allin)

    clamped_actions = []
    for action in actions:
        if action.kind in (BET, RAISE):
            clamped = min(max(action.amount, min_amount), max_amount)
            if forced_allin(clamped):
                action = Action(ALLIN, max_amount)
            elif clamped != action.amount:
                action = Action(action.kind, clamped)
        clamped_actions.append(action)
    kept = _merge(sorted(set(clamped_actions)), pot, prev_amount, options.merge)

    after_call = "showdown" if node.street == 2 else "chance"
    for action in kept:
        amount = node.amount
        if action.kind == FOLD:
            child = Node("fold", player, node.street, amount)
        elif action.kind == CHECK:
            child = Node("action", opponent, node.street, amount) if player == OOP else Node(after_call, -1, node.street, amount)
        elif action.kind == CALL:
            child = Node(after_call, -1, node.street, amount + to_call)
        else:
            child = Node("action", opponent, node.street, amount + to_call)
        child.parent = node
        node.actions.append(action)
        node.children.append(child)
    nxt = [info.next(player, a) for a in kept]
    for child, child_info in zip(node.children, nxt, strict=True):
        child.stacks = child_info.stacks


def _merge(actions: list[Action], pot: int, offset: int, threshold: float) -> list[Action]:
    """Drop bets closer than ``threshold`` to a larger kept one (postflop-solver's ``merge_bet_actions``)."""
    eps = 1e-12
    kept = []
    current = 2**31 - 1
    for action in reversed(actions):
        if action.is_bet:
            ratio = (action.amount - offset) / pot
            current_ratio = (current - offset) / pot
            limit = (current_ratio - threshold) / (1.0 + threshold)
            if ratio < limit * (1.0 - eps):
                kept.append(action)
                current = action.amount
        else:
            kept.append(action)
    return kept[::-1]


SizesLike = str | dict[str, Any] | None


def _lookup(spec: SizesLike, player: int, street: int, what: str) -> str:
    """The sizes text of ``player`` on ``street`` in ``spec``: one text for every street and player, or a mapping
    whose most specific key wins (``'ip river'``, then ``'river'``, then ``'ip'``, then ``'all'``)."""
    if spec is None:
        return ""
    if isinstance(spec, str):
        return spec
    if not isinstance(spec, dict):
        raise SolverError(f"The {what} sizes {spec!r} are neither text like '33%, 75%, a' nor a mapping like "
                          "{'flop': '33%', 'turn': '75%'}.")
    known = {"all", *STREETS, "oop", "ip"} | {f"{p} {s}" for p in ("oop", "ip") for s in STREETS}
    for key in spec:
        if not isinstance(key, str) or " ".join(key.lower().split()) not in known:
            raise SolverError(f"The {what} sizes name {key!r}; expected keys like 'flop', 'turn', 'river', 'oop', 'ip', "
                              "'ip river' or 'all'.")
    named = {" ".join(k.lower().split()): v for k, v in spec.items()}
    who = ("oop", "ip")[player]
    for key in (f"{who} {STREETS[street]}", STREETS[street], who, "all"):
        if key in named:
            value = named[key]
            if value is not None and not isinstance(value, str):
                raise SolverError(f"The {what} sizes of {key!r} are {value!r}; expected text like '33%, 75%, a'.")
            return value or ""
    return ""


def street_sizes(bet: SizesLike, raise_: SizesLike) -> tuple[tuple[PlayerSizes, PlayerSizes], ...]:
    """``sizes[street][player]`` of :class:`TreeOptions` from bet and raise sizes given as one text for every
    street and player, or as mappings (see :func:`_lookup`).

    >>> sizes = street_sizes({"flop": "33%", "river": "75%, a", "ip river": "a"}, "3x")
    >>> [[", ".join(map(str, sizes[s][p][0])) for p in (OOP, IP)] for s in range(3)]
    [['33%', '33%'], ['', ''], ['75%, a', 'a']]
    """
    def player(p: int, s: int) -> PlayerSizes:
        return parse_sizes(_lookup(bet, p, s, "bet")), parse_sizes(_lookup(raise_, p, s, "raise"), raise_=True)

    return tuple((player(OOP, s), player(IP, s)) for s in range(3))


def donk_sizes(donk: SizesLike) -> tuple[tuple[BetSize, ...] | None, tuple[BetSize, ...] | None]:
    """OOP's donk sizes on the turn and the river: None (OOP's bet sizes), one text for both, or a mapping with
    'turn' and 'river'.

    >>> donk_sizes({"river": "50%"})
    (None, (BetSize('50%'),))
    """
    if donk is None:
        return (None, None)
    if isinstance(donk, str):
        return (parse_sizes(donk), parse_sizes(donk))
    if not isinstance(donk, dict) or any(k not in ("turn", "river") for k in donk):
        raise SolverError(f"The donk sizes {donk!r} are neither text like '50%' nor a mapping with 'turn' and 'river'.")
    turn, river = donk.get("turn"), donk.get("river")
    return (None if turn is None else parse_sizes(turn), None if river is None else parse_sizes(river))
