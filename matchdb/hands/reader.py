"""Reading hand histories: PHH files (``.phh``, ``.phhs``) and the raw site histories pokerkit parses.

A PHH file ("poker hand history", the format of pokerkit's authors) is TOML:
one hand per ``.phh`` file, or sections ``[1]``, ``[2]``, ... in a ``.phhs``
file. Each section is read on its own with pokerkit's field definitions
(:class:`pokerkit.notation.HandHistory`), so a malformed hand is refused with
its file, its number and why, and the rest of the file is still read. The
TOML of a section is parsed by ``toml_rs`` when it is installed (about 30x
faster than the standard library's ``tomllib``, which pokerkit uses and
which is the fallback). A raw site history (PokerStars, Full Tilt, Absolute,
iPoker, Ongame, PartyPoker text logs) goes through pokerkit's own parser for
its site, found by pokerkit's patterns or named with ``site=``.

Amounts become whole chips: each hand gets a ``unit`` (chips per currency
unit: 1, 10, 100, ... the smallest making every amount of the hand whole),
so ``$0.50/$1`` blinds are 50 and 100 chips. Only no-limit Texas hold'em
(``variant = 'NT'``) is read; another variant is refused in one sentence
that names it. A hand past the limits (an amount over :data:`MAX_CHIPS`,
more than :data:`MAX_ACTIONS` actions or :data:`MAX_HAND_CHARS` characters)
is refused in one sentence that says the bound; a longer section is not kept
while the file is split, so memory stays within a piece of the file. A
byte-order mark is read past; a ``[[N]]`` header is refused.

Speed (about 40,000 hands a second on one core, the TOML parse a third of
it): a file is read in large pieces searched for its section lines; a
section's fields become a record by a quick path for the common hand (plain
int and float amounts, each action string decoded once and looked up after)
that gives the careful path's record, and by the careful path, field by
field, for everything else, refusals included (the tests compare the two).

>>> text = '''
... [7]
... variant = 'NT'
... antes = [0, 0, 0]
... blinds_or_straddles = [0.50, 1, 0]
... min_bet = 1
... starting_stacks = [200.30, 81.60, 197]
... actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p3 f', 'p1 cbr 3.00', 'p2 f']
... players = ['Ann', 'Bob', 'Cy']
... winnings = [2, 0, 0]
... '''
>>> stream = read_text(text, "sample.phhs")
>>> hand = next(iter(stream))
>>> hand.label, hand.unit, hand.blinds, hand.stacks
('sample.phhs [7]', 100, (50, 100, 0), (20030, 8160, 19700))
>>> hand.ops[-2:], hand.winnings
(((4, 0, 300), (2, 1, 0)), (200, 0, 0))
>>> stream.read, stream.refused
(1, [])
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import math
import os
import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from matchdb.core.cards import format_card
from matchdb.errors import MatchdbError

if TYPE_CHECKING:
    from pokerkit.notation import REParser

__all__ = [
    "BET_RAISE",
    "CHECK_CALL",
    "DB",
    "DH",
    "FOLD",
    "MAX_ACTIONS",
    "MAX_CHIPS",
    "MAX_HAND_CHARS",
    "MAX_PLAYERS",
    "SHOW",
    "SITES",
    "UNKNOWN",
    "HandStream",
    "HandsError",
    "Record",
    "Refusal",
    "read",
    "read_text",
]


class HandsError(MatchdbError):
    """A hand history could not be read, replayed, analysed or fitted as asked."""


#: Most players at one table the engine seats.
MAX_PLAYERS = 10
#: Most chips in any amount of a hand (a stack, a blind, a bet, a payment): 10**15, a billion at six decimals.
MAX_CHIPS = 10**15
#: Most actions in one hand (a hold'em hand has a few dozen).
MAX_ACTIONS = 20_000
#: Most characters in one hand's text (PHH section or site history).
MAX_HAND_CHARS = 1_000_000
#: A hidden card (``?`` in PHH) in :attr:`Record.ops`.
UNKNOWN = -1
# Operation kinds of :attr:`Record.ops`.
DH = 0  # hole cards dealt: (DH, player, cards)
DB = 1  # board cards dealt: (DB, -1, cards)
FOLD = 2  # (FOLD, player, 0)
CHECK_CALL = 3  # (CHECK_CALL, player, 0)
BET_RAISE = 4  # (BET_RAISE, player, total in chips)
SHOW = 5  # cards shown or mucked: (SHOW, player, cards)

#: Site names for ``site=`` and the pokerkit parser method that reads each.
SITES = {
    "pokerstars": "from_pokerstars",
    "fulltilt": "from_full_tilt_poker",
    "absolute": "from_absolute_poker",
    "ipoker": "from_ipoker_network",
    "ongame": "from_ongame_network",
    "partypoker": "from_partypoker",
}

_CARD = {format_card(c): c for c in range(52)}
_CARD |= {text[0] + text[1].upper(): c for text, c in _CARD.items()} | {text.upper(): c for text, c in _CARD.items()}
_REQUIRED = ("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions")
_SECTION = re.compile(r"^\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$")
_ARRAY_SECTION = re.compile(r"^\[\[\s*([^\[\]]+?)\s*\]\]\s*(?:#.*)?$")
_BLOCK_CHARS = 1 << 23  # characters of sections held before they are parsed (at most a block of them)
_SCALES = (1, 100, 10, 1000, 10_000, 100_000, 1_000_000)
_PIECE = 1 << 20  # characters of a PHH file read at a time
_VARIANT_NAMES = {
    "FT": "fixed-limit Texas hold'em",
    "NS": "no-limit short-deck hold'em",
    "PO": "pot-limit Omaha hold'em",
    "FO/8": "fixed-limit Omaha hold'em high/low",
    "F7S": "fixed-limit seven card stud",
    "F7S/8": "fixed-limit seven card stud high/low",
    "FR": "fixed-limit razz",
    "N2L1D": "no-limit 2-7 single draw",
    "F2L3D": "fixed-limit 2-7 triple draw",
    "FB": "fixed-limit badugi",
}


@dataclass(frozen=True, eq=False)
class Record:
    """One no-limit hold'em hand as recorded, amounts in whole chips.

    Players are in PHH order (``p1`` first: the small blind, the big blind,
    ..., the button last; heads-up ``p1`` is the big blind). ``actions`` are
    the record's action strings as written; ``ops`` the same decoded:
    ``(kind, player index, value)`` with kind :data:`DH`, :data:`DB`,
    :data:`FOLD`, :data:`CHECK_CALL`, :data:`BET_RAISE` (value: the total
    to bet or raise to, in chips) or :data:`SHOW`; for dealing and showing
    the value is a tuple of card ids (:data:`UNKNOWN` for a hidden card) and
    the action's index in ``actions`` is kept in ``op_actions``.
    ``stacks`` holds ``None`` for an unlimited (``inf``) stack. ``winnings``
    and ``finishing_stacks`` are None when the record leaves them out.
    ``fields`` keeps every other field (venue, table, hand number, seats,
    time, ...).
    """

    file: str
    number: str
    index: int
    unit: int
    antes: tuple[int, ...]
    blinds: tuple[int, ...]
    min_bet: int
    stacks: tuple[int | None, ...]
    actions: tuple[str, ...]
    ops: tuple[tuple[int, int, Any], ...]
    op_actions: tuple[int, ...]
    players: tuple[str, ...]
    winnings: tuple[int, ...] | None = None
    finishing_stacks: tuple[int, ...] | None = None
    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The file's name and the hand's number, as messages name a hand: ``'abs-100nl.phhs [3]'``."""
        return f"{Path(self.file).name} [{self.number}]"

    @property
    def size(self) -> int:
        """Players dealt in."""
        return len(self.stacks)

    @property
    def big_blind(self) -> int:
        """The big blind in chips (the larger of the first two blinds)."""
        return max(self.blinds[:2])

    def amount(self, chips: int) -> Decimal:
        """Chips as the record's currency amount (``Decimal``)."""
        return Decimal(int(chips)).scaleb(-_exponent(self.unit)) if self.unit != 1 else Decimal(int(chips))

    def history(self) -> Any:
        """This hand as a :class:`pokerkit.notation.HandHistory` (exact ``Decimal`` amounts)."""
        HandHistory = _pokerkit().HandHistory
        names = {f.name for f in dataclasses.fields(HandHistory)}
        amount = self.amount
        kwargs: dict[str, Any] = {
            "variant": "NT",
            "antes": [amount(x) for x in self.antes],
            "blinds_or_straddles": [amount(x) for x in self.blinds],
            "min_bet": amount(self.min_bet),
            "starting_stacks": [Decimal("inf") if x is None else amount(x) for x in self.stacks],
            "actions": list(self.actions),
            "players": list(self.players),
        }
        if self.winnings is not None:
            kwargs["winnings"] = [amount(x) for x in self.winnings]
        if self.finishing_stacks is not None:
            kwargs["finishing_stacks"] = [amount(x) for x in self.finishing_stacks]
        extra: dict[str, object] = {}
        for key, value in self.fields.items():
            (kwargs if key in names else extra)[key] = value
        return HandHistory(**kwargs, user_defined_fields=extra)


@dataclass(frozen=True)
class Refusal:
    """A hand that was not read or not replayed: where it is, a reason code and one sentence.

    Reason codes: ``malformed`` (not valid TOML or PHH, or truncated),
    ``variant`` (not no-limit hold'em), ``table`` (more players, unequal
    antes or other set-ups the engine does not play), ``illegal`` (an action
    the rules do not allow), ``disagreement`` (the engine's result differs
    from the record's), ``incomplete`` (the record stops before the hand
    ends) and ``limit`` (past :data:`MAX_CHIPS`, :data:`MAX_ACTIONS` or
    :data:`MAX_HAND_CHARS`).
    """

    file: str
    number: str
    index: int
    reason: str
    message: str

    @property
    def label(self) -> str:
        return f"{Path(self.file).name} [{self.number}]"

    def __str__(self) -> str:
        return self.message


class HandStream:
    """The hands of one or more files, read lazily: iterate for :class:`Record` objects.

    Refused hands are not yielded; they collect in :attr:`refused`
    (:class:`Refusal`), and :attr:`read` counts every hand met, refused or
    not. Memory stays flat: one block of sections is held at a time.
    """

    def __init__(self, sources: list[Path | str | tuple[str, str]], site: str | None = None, block: int = 256) -> None:
        self.sources = sources
        self.site = site
        self.block = block
        self.read = 0
        self.refused: list[Refusal] = []

    def __iter__(self) -> Iterator[Record]:
        for source in self.sources:
            yield from self._one(source)

    def _one(self, source: Path | str | tuple[str, str]) -> Iterator[Record]:
        if isinstance(source, tuple):  # (name, text) given in memory
            name, text = source
            yield from self._text(name, text)
            return
        path = Path(source)
        if not path.is_file():
            raise HandsError(f"The hand history {str(path)!r} does not exist or is not a file; expected a .phh, "
                             ".phhs or site history file.")
        if path.suffix.lower() in (".phh", ".phhs", ".toml"):
            with open(path, encoding="utf-8-sig", errors="replace") as handle:  # a byte-order mark is dropped
                yield from self._phh(str(path), handle)
        else:
            yield from self._site(str(path), path.read_text(encoding="utf-8-sig", errors="replace"))

    def _text(self, name: str, text: str) -> Iterator[Record]:
        text = text.removeprefix("\ufeff")  # a byte-order mark, as a file read as UTF-8 text may begin
        if self.site is None and _looks_like_phh(text):
            yield from self._phh(name, io.StringIO(text))
        else:
            yield from self._site(name, text)

    # -- PHH ---------------------------------------------------------------------------------------

    def _phh(self, name: str, handle: io.TextIOBase) -> Iterator[Record]:
        # Sections start at a line that opens with "[" and reads as a section header ("[[N]]", an array of
        # tables, starts one that is refused); the text is read in large pieces cut at line ends and searched for
        # "\n[" (the same split as reading line by line, see _phh_lines, which the tests compare with it). A
        # section longer than MAX_HAND_CHARS is not kept (None): memory stays within a piece and a block.
        sections: list[tuple[str, int, str | None]] = []
        header: str | None = None
        body: list[str] | None = []
        size = 0
        held = 0
        index = 0
        carry = ""
        skipping = False  # inside a line longer than any hand, dropped as it comes
        while True:
            piece = handle.read(_PIECE)
            last = not piece
            if skipping and piece:
                newline = piece.find("\n")
                if newline < 0:
                    continue
                piece = piece[newline + 1:]
                skipping = False
                if not piece:
                    continue
            text = carry + piece
            if not last:
                cut = text.rfind("\n") + 1
                if cut == 0:
                    carry = text
                    if len(carry) > MAX_HAND_CHARS:  # one line longer than any hand: its section is refused
                        body, carry, skipping = None, "", True
                    continue
                text, carry = text[:cut], text[cut:]
            start = 0
            at = 0 if text.startswith("[") else _line_after(text.find("\n["))
            while at >= 0:
                newline = text.find("\n", at)
                end = len(text) if newline < 0 else newline + 1
                line = text[at:end]
                if line[-2:] == "]\n" and line[1:-2].isdigit():  # the usual "[12]": what the pattern finds in it
                    number: str | None = line[1:-2]
                else:
                    number = _header(line)
                if number is not None:
                    if body is not None and size + at - start <= MAX_HAND_CHARS:
                        body.append(text[start:at])
                        kept: str | None = "".join(body)
                    else:
                        kept = None
                    if header is not None or kept is None or _has_content(kept):
                        sections.append((header if header is not None else "1", index, kept))
                        held += len(kept or "")
                        if len(sections) >= self.block or held >= _BLOCK_CHARS:
                            yield from self._sections(name, sections)
                            sections, held = [], 0
                    index += 1
                    header = number
                    body, size = [], 0
                    start = end
                at = -1 if newline < 0 else _line_after(text.find("\n[", newline))
            if body is not None:
                size += len(text) - start
                if size <= MAX_HAND_CHARS:
                    body.append(text[start:])
                else:
                    body = None
            if last:
                break
        rest = None if body is None else "".join(body)
        if header is not None or rest is None or rest.strip():
            sections.append((header if header is not None else "1", max(index, 1), rest))
        yield from self._sections(name, sections)

    def _phh_lines(self, name: str, lines: Iterable[str]) -> Iterator[Record]:
        """The same as :meth:`_phh`, line by line (the plain reading the tests compare the fast split with)."""
        sections: list[tuple[str, int, str | None]] = []
        header: str | None = None
        body: list[str] = []
        index = 0
        held = 0

        def kept() -> str | None:
            text = "".join(body)
            return text if len(text) <= MAX_HAND_CHARS else None

        for line in lines:
            if line.startswith("["):
                number = _header(line)
                if number is not None:
                    text = kept()
                    if header is not None or text is None or _has_content(text):
                        sections.append((header if header is not None else "1", index, text))
                        held += len(text or "")
                        if len(sections) >= self.block or held >= _BLOCK_CHARS:
                            yield from self._sections(name, sections)
                            sections, held = [], 0
                    index += 1
                    header = number
                    body = []
                    continue
            body.append(line)
        text = kept()
        if header is not None or text is None or any(x.strip() for x in body):
            sections.append((header if header is not None else "1", max(index, 1), text))
        yield from self._sections(name, sections)

    def _sections(self, name: str, sections: list[tuple[str, int, str | None]]) -> Iterator[Record]:
        loads, error_types = _toml()
        for number, index, text in sections:
            self.read += 1
            if number[:1] == "[":
                self._refuse(name, number[1:-1], index, "malformed",
                             f"is headed [{number}], a TOML array of tables; a .phhs file heads each hand [N]")
                continue
            if text is None:
                self._refuse(name, number, index, "limit", f"is longer than {MAX_HAND_CHARS:,} characters; matchdb "
                             f"reads hands of at most {MAX_HAND_CHARS:,} characters and {MAX_ACTIONS:,} actions")
                continue
            try:
                raw = loads(text)
            except error_types as error:
                self._refuse(name, number, index, "malformed",
                             f"is not valid TOML ({_first_line(error)}); the file may be truncated or damaged")
                continue
            made = _quick_record(raw, name, number, index) or self._make(name, number, index, raw)
            if made is not None:
                yield made

    def _make(self, name: str, number: str, index: int, raw: dict[str, Any]) -> Record | None:
        try:
            return make_record(raw, name, number, index)
        except _Refuse as refusal:
            self._refuse(name, number, index, refusal.reason, refusal.text)
            return None

    def _refuse(self, name: str, number: str, index: int, reason: str, text: str) -> None:
        self.refused.append(Refusal(name, number, index, reason, f"Hand [{number}] of {Path(name).name} {text}."))

    # -- raw site histories ------------------------------------------------------------------------

    def _site(self, name: str, text: str) -> Iterator[Record]:
        pokerkit = _pokerkit()
        site = self.site or _detect_site(text)
        if site is None:
            raise HandsError(f"The file {Path(name).name!r} is neither PHH nor a site history pokerkit recognises; "
                             f"expected a .phh/.phhs file or a history of {', '.join(SITES)} (or give site=).")
        if site not in SITES:
            raise HandsError(f"The site {site!r} is unknown; expected one of {', '.join(SITES)}.")
        parser = getattr(pokerkit.HandHistory, SITES[site])
        pattern = _site_parser(site).HAND
        for index, chunk in enumerate(re.findall(pattern, text), 1):
            self.read += 1
            number = str(index)
            if len(chunk) > MAX_HAND_CHARS:
                self._refuse(name, number, index, "limit", f"is longer than {MAX_HAND_CHARS:,} characters; matchdb "
                             f"reads hands of at most {MAX_HAND_CHARS:,} characters and {MAX_ACTIONS:,} actions")
                continue
            try:
                with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()) as err:
                    warnings.simplefilter("ignore")
                    history = next(iter(parser(chunk, error_status=True)))
            except (ValueError, KeyError, StopIteration, IndexError) as error:
                cause = _last_line(err.getvalue()) if err.getvalue() else _first_line(error)
                self._refuse(name, number, index, "malformed", f"cannot be parsed as a {site} hand ({cause})")
                continue
            raw = {f.name: getattr(history, f.name) for f in dataclasses.fields(history)
                   if f.name in _KEEP and getattr(history, f.name) is not None}
            raw |= dict(history.user_defined_fields)
            made = _quick_record(raw, name, number, index) or self._make(name, number, index, raw)
            if made is not None:
                yield made


def read(source: Any, site: str | None = None, block: int = 256) -> HandStream:
    """The hands of a file, a folder or a list of them (``.phh``, ``.phhs``, raw site histories).

    Parameters
    ----------
    source : a path, a folder (every ``.phh``/``.phhs`` in it, sorted) or a
        list of paths.
    site : read the files as raw histories of this site (one of
        :data:`SITES`); by default a file that is not PHH is matched against
        pokerkit's site patterns.
    block : sections parsed per step (memory stays flat in the file's size).

    Returns
    -------
    HandStream
        Iterate it for :class:`Record` objects; refused hands collect in
        ``.refused`` with their file, number and why.

    >>> read("missing.phhs").refused
    []
    >>> list(read("missing.phhs"))
    Traceback (most recent call last):
    ...
    matchdb.hands.reader.HandsError: The hand history 'missing.phhs' does not exist or is not a file; expected a .phh, .phhs or site history file.
    """
    if site is not None and site not in SITES:
        raise HandsError(f"The site {site!r} is unknown; expected one of {', '.join(SITES)}.")
    return HandStream(_paths(source), site=site, block=block)


def read_text(text: str, name: str = "<text>", site: str | None = None) -> HandStream:
    """The hands of PHH or site-history text held in memory (``name`` labels them in messages).

    >>> stream = read_text("[1]\\nvariant = 'PO'\\nantes = [0, 0]\\nblinds_or_straddles = [1, 2]\\n"
    ...                    "min_bet = 2\\nstarting_stacks = [200, 200]\\nactions = []\\n", "omaha.phhs")
    >>> list(stream), stream.refused[0].message
    ([], "Hand [1] of omaha.phhs is pot-limit Omaha hold'em ('PO'); matchdb reads no-limit Texas hold'em ('NT') only.")
    """
    return HandStream([(name, text)], site=site)


def _paths(source: object) -> list[Path | str | tuple[str, str]]:
    if isinstance(source, (str, os.PathLike)):
        sources = [source]
    elif isinstance(source, Iterable):
        sources = list(source)
    else:
        raise HandsError(f"The source {source!r} is not a path or a list of paths.")
    out: list[Path | str | tuple[str, str]] = []
    for item in sources:
        if isinstance(item, tuple):
            out.append(item)
            continue
        path = Path(item)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix.lower() in (".phh", ".phhs"))
            if not found:
                raise HandsError(f"The folder {str(path)!r} holds no .phh or .phhs file.")
            out += found
        else:
            out.append(path)
    return out


# -- making a record ---------------------------------------------------------------------------------


class _Refuse(Exception):
    def __init__(self, reason: str, text: str) -> None:
        super().__init__(text)
        self.reason = reason
        self.text = text


_KEEP = ("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions", "players",
         "winnings", "finishing_stacks", "venue", "hand", "table", "seats", "seat_count", "time", "day", "month",
         "year", "currency", "currency_symbol", "event", "url", "author", "level", "time_zone")


def make_record(raw: dict[str, Any], file: str = "<hand>", number: str = "1", index: int = 1) -> Record:
    """A :class:`Record` from a hand's PHH fields (a parsed TOML section or a pokerkit HandHistory's fields).

    Raises ``_Refuse`` (internal) with a reason code; :class:`HandStream` turns it into a :class:`Refusal`.
    The common hand (every amount a finite int or float, every action one already met) takes a quick path
    that gives the same record; any other, a refused one included, the careful path below it.

    >>> record = make_record({"variant": "NT", "antes": [0, 0], "blinds_or_straddles": [0.5, 1], "min_bet": 1,
    ...                       "starting_stacks": [100, 80.25], "actions": ["d dh p1 AsAd", "p2 cbr 3.5"]})
    >>> record.unit, record.blinds, record.stacks, record.ops[1]
    (100, (50, 100), (10000, 8025), (4, 1, 350))
    """
    record = _quick_record(raw, file, number, index)
    return record if record is not None else _careful_record(raw, file, number, index)


def _careful_record(raw: dict[str, Any], file: str, number: str, index: int) -> Record:
    """:func:`make_record` field by field: every check in order, so a refusal names the first thing wrong."""
    for name in _REQUIRED:
        if name not in raw:
            raise _Refuse("malformed", f"lacks the field {name!r}; the file may be truncated")
    variant = raw["variant"]
    if variant != "NT":
        described = _VARIANT_NAMES.get(variant, "an unknown variant")
        raise _Refuse("variant", f"is {described} ({variant!r}); matchdb reads no-limit Texas hold'em ('NT') only")
    antes, blinds, stacks, actions = raw["antes"], raw["blinds_or_straddles"], raw["starting_stacks"], raw["actions"]
    for key, value in (("antes", antes), ("blinds_or_straddles", blinds), ("starting_stacks", stacks),
                       ("actions", actions)):
        if not isinstance(value, list):
            raise _Refuse("malformed", f"has {key} = {value!r}; expected a list")
    n = len(stacks)
    if not 2 <= n <= MAX_PLAYERS:
        raise _Refuse("table", f"has {n} players; the engine seats 2 to {MAX_PLAYERS}")
    if len(actions) > MAX_ACTIONS:
        raise _Refuse("limit", f"has {len(actions):,} actions; matchdb reads hands of at most {MAX_ACTIONS:,} "
                      f"actions and {MAX_HAND_CHARS:,} characters")
    if len(antes) != n or len(blinds) != n:
        raise _Refuse("malformed", f"lists {len(antes)} antes and {len(blinds)} blinds for {n} players")
    players = raw.get("players")
    if players is None:
        players = [f"p{k + 1}" for k in range(n)]
    elif not isinstance(players, list) or len(players) != n:
        raise _Refuse("malformed", f"names {players!r} as players; expected {n} names")
    winnings = raw.get("winnings")
    finishing = raw.get("finishing_stacks")
    for key, value in (("winnings", winnings), ("finishing_stacks", finishing)):
        if value is not None and (not isinstance(value, list) or len(value) != n):
            raise _Refuse("malformed", f"has {key} = {value!r}; expected {n} amounts")
    # decode the actions, collecting the bet amounts to find the unit
    ops: list[tuple[int, int, Any]] = []
    where: list[int] = []
    amounts: list[int | float | Decimal] = []
    bet_at: list[int] = []
    for k, action in enumerate(actions):
        if not isinstance(action, str):
            raise _Refuse("malformed", f"has the action {action!r}; expected text like 'p1 cc'")
        op = _OPS.get(action)
        if op is None:
            words = action.split("#", 1)[0].split()
            if not words:
                continue
            op = _op(words, action)
            if len(_OPS) > _CACHED:
                _OPS.clear()
            _OPS[action] = op
        if op[1] >= n:
            raise _Refuse("malformed", f"has the action {action!r} for a player beyond p{n}")
        if op[0] == BET_RAISE:
            amounts.append(op[2])
            bet_at.append(len(ops))
        ops.append(op)
        where.append(k)
    numbers = [*antes, *blinds, raw["min_bet"], *stacks, *(winnings or ()), *(finishing or ()), *amounts]
    unit = _unit(numbers)
    if unit is None:
        raise _Refuse("malformed", "has an amount that is not a number with at most 6 decimals")
    try:
        chips = _convert(numbers, unit)
    except (TypeError, ValueError, OverflowError):
        raise _Refuse("malformed", "has an amount that is not a number") from None
    fixed = [c for c in chips[: 2 * n + 1] if c is not None]
    if len(fixed) != 2 * n + 1:
        raise _Refuse("malformed", "has an unlimited ante, blind or minimum bet")
    at = 3 * n + 1
    paid = None
    if winnings is not None:
        paid = tuple(c for c in chips[at:at + n] if c is not None)
        if len(paid) != n:
            raise _Refuse("malformed", "has unlimited winnings or bets")
        at += n
    finished = None
    if finishing is not None:
        finished = tuple(c for c in chips[at:at + n] if c is not None)
        if len(finished) != n:
            raise _Refuse("malformed", "has an unlimited finishing stack")
        at += n
    for i, j in enumerate(bet_at):
        ops[j] = (BET_RAISE, ops[j][1], chips[at + i])
    record = Record(
        file=file, number=str(number), index=index, unit=unit,
        antes=tuple(fixed[:n]), blinds=tuple(fixed[n:2 * n]), min_bet=fixed[2 * n],
        stacks=tuple(chips[2 * n + 1:3 * n + 1]), actions=tuple(actions), ops=tuple(ops), op_actions=tuple(where),
        players=tuple(map(str, players)), winnings=paid, finishing_stacks=finished,
        fields={k: v for k, v in raw.items() if k not in _REQUIRED and k not in _OWN},
    )
    if None in chips[at:]:
        raise _Refuse("malformed", "has unlimited winnings or bets")
    if any(x is not None and x < 0 for x in record.stacks) or min(record.antes) < 0:
        raise _Refuse("malformed", "has a negative stack or ante (a negative blind is a post; a stack or ante is not)")
    huge = max((abs(x) for x in chips if x is not None), default=0)
    if huge > MAX_CHIPS:
        money = "" if record.unit == 1 else f" ({record.amount(MAX_CHIPS):,} in this hand's currency)"
        raise _Refuse("limit", f"has an amount of {_digits(huge)}; matchdb reads amounts of at most 10^15 chips{money}")
    return record


_OWN = ("players", "winnings", "finishing_stacks")
#: Decoded actions by their text: real files repeat the same few hundred action strings.
_OPS: dict[str, tuple[int, int, Any]] = {}


_FIXED_FIELDS = (*_REQUIRED, *_OWN)
_NUMBER_TYPES = frozenset((int, float))
_ALL_SCALES = (1 << len(_SCALES)) - 1
_SCALE_BITS = tuple((1 << k, scale) for k, scale in enumerate(_SCALES))
_HUGE = 1e300  # amounts this large or more _convert leaves unlimited
#: Quick-path caches (each cleared past _CACHED entries): an action's scale mask (the scales that make its bet
#: whole) with its player + 1 in the bits above 8; per unit, an action's op in chips.
_CACHED = 200_000
_ACTION_CODES: dict[str, int] = {}
_UNIT_OPS: dict[int, dict[str, tuple[int, int, Any]]] = {}
_RANGES: dict[int, tuple[int, ...]] = {}
_new = object.__new__
_set_attribute = object.__setattr__


def _quick_record(raw: dict[str, Any], file: str, number: str, index: int) -> Record | None:
    """The record :func:`_careful_record` makes, for a hand it accepts with plain amounts and known actions; else None.

    Every amount is an int or a finite float, every action a string the careful path decoded before (or
    decodes here without refusing): then the unit and the chips are found as the careful path finds them
    and the ops looked up per action string and unit. Anything else returns None and the careful path
    decides (and words any refusal).
    """
    try:
        if raw["variant"] != "NT":
            return None
        antes, blinds, min_bet = raw["antes"], raw["blinds_or_straddles"], raw["min_bet"]
        stacks, actions = raw["starting_stacks"], raw["actions"]
    except KeyError:
        return None
    if type(antes) is not list or type(blinds) is not list or type(stacks) is not list or type(actions) is not list:
        return None
    n = len(stacks)
    if not 2 <= n <= MAX_PLAYERS or len(antes) != n or len(blinds) != n or len(actions) > MAX_ACTIONS:
        return None
    players, winnings, finishing = raw.get("players"), raw.get("winnings"), raw.get("finishing_stacks")
    for value in (players, winnings, finishing):
        if value is not None and (type(value) is not list or len(value) != n):
            return None
    numbers = [*antes, *blinds, min_bet, *stacks]
    if winnings is not None:
        numbers += winnings
    if finishing is not None:
        numbers += finishing
    types = set(map(type, numbers))
    if not types <= _NUMBER_TYPES:
        return None
    floats = [value for value in numbers if type(value) is float]
    if floats and not all(map(_HUGE.__gt__, map(abs, floats))):  # inf, NaN or an amount _convert leaves unlimited
        return None
    # Each lookup below raises on an action not met before (a quicker test than looking for None afterwards);
    # the action is then learnt, and one that the careful path would treat otherwise ends the quick path.
    try:
        codes: set[int | None] = set(map(_ACTION_CODES.__getitem__, actions))
    except KeyError:
        if not _learn_actions(actions):
            return None
        codes = set(map(_ACTION_CODES.get, actions))
    except TypeError:  # an action that is not text (a list, say)
        return None
    mask = _ALL_SCALES
    top = 0
    for code in codes:
        if code is None:  # a cache cleared meanwhile
            return None
        mask &= code
        if code >> 8 > top:
            top = code >> 8
    if top > n:
        return None
    # the unit: the first scale, in _unit's order, that makes every bet (the actions' masks) and every amount whole
    unit = None
    for bit, scale in _SCALE_BITS:
        if mask & bit:
            for value in floats:
                x = value * scale
                if abs(x - round(x)) > 1e-7 * (x if x > 1.0 else 1.0):  # _unit's test, max(1.0, x) written out
                    break
            else:
                unit = scale
                break
    if unit is None:
        return None
    table = _UNIT_OPS.get(unit)
    if table is None:
        table = _UNIT_OPS[unit] = {}
    try:
        ops: list[Any] = list(map(table.__getitem__, actions))
    except KeyError:
        _learn_ops(actions, unit, table)
        ops = list(map(table.get, actions))
        if None in ops:
            return None
    if not floats:
        chips = [value * unit for value in numbers] if unit != 1 else numbers
    elif unit == 1:
        chips = [value if type(value) is int else int(value) for value in numbers]
    else:
        chips = [value * unit if type(value) is int else round(value * unit) for value in numbers]
    low = min(chips)  # negative only for a post (a blind) or a bad ante, stack or payment
    if max(chips) > MAX_CHIPS or low < 0 and (low < -MAX_CHIPS or min(chips[:n]) < 0
                                              or min(chips[2 * n + 1:3 * n + 1]) < 0):
        return None
    at = 3 * n + 1
    paid = finished = None
    if winnings is not None:
        paid = tuple(chips[at:at + n])
        at += n
    if finishing is not None:
        finished = tuple(chips[at:at + n])
    fields = dict(raw)
    for key in _FIXED_FIELDS:
        fields.pop(key, None)
    where = _RANGES.get(len(actions))
    if where is None:
        where = _RANGES[len(actions)] = tuple(range(len(actions)))
    record = _new(Record)
    _set_attribute(record, "__dict__", {  # the fields in their order, as the dataclass's __init__ sets them
        "file": file, "number": str(number), "index": index, "unit": unit, "antes": tuple(chips[:n]),
        "blinds": tuple(chips[n:2 * n]), "min_bet": chips[2 * n], "stacks": tuple(chips[2 * n + 1:3 * n + 1]),
        "actions": tuple(actions), "ops": tuple(ops), "op_actions": where,
        "players": tuple(map(str, players)) if players is not None else _NAMES[n], "winnings": paid,
        "finishing_stacks": finished, "fields": fields,
    })
    return record


_NAMES = {n: tuple(f"p{k + 1}" for k in range(n)) for n in range(2, MAX_PLAYERS + 1)}


def _scale_mask(value: float) -> int | None:
    """The scales of _SCALES (bits) that make ``value`` whole, as :func:`_unit` tests them; None for inf or NaN."""
    if type(value) is int:
        return _ALL_SCALES
    if not -1e300 < value < 1e300:  # NaN, inf and amounts _convert leaves unlimited
        return None
    mask = 0
    for bit, scale in _SCALE_BITS:
        x = value * scale
        if abs(x - round(x)) <= 1e-7 * (x if x > 1.0 else 1.0):  # whole within _unit's tolerance (x finite)
            mask |= bit
    return mask


def _decoded(action: Any) -> tuple[int, int, Any] | None:
    """The op of an action as the careful path decodes it, or None where it would skip or refuse it."""
    if not isinstance(action, str):
        return None
    op = _OPS.get(action)
    if op is not None:
        return op
    words = action.split("#", 1)[0].split()
    if not words:
        return None
    try:
        op = _op(words, action)
    except _Refuse:
        return None
    if len(_OPS) > _CACHED:
        _OPS.clear()
    _OPS[action] = op
    return op


def _learn_actions(actions: list[Any]) -> bool:  # the history's raw values
    """Cache the codes of ``actions`` (scale mask, player + 1 above bit 8); False when one is not plain."""
    if len(_ACTION_CODES) > _CACHED:
        _ACTION_CODES.clear()
    for action in actions:
        if isinstance(action, str) and action in _ACTION_CODES:
            continue
        op = _decoded(action)
        if op is None:
            return False
        mask = _scale_mask(op[2]) if op[0] == BET_RAISE else _ALL_SCALES
        if mask is None:
            return False
        _ACTION_CODES[action] = mask | (op[1] + 1) << 8
    return True


def _learn_ops(actions: list[str], unit: int, table: dict[str, tuple[int, int, Any]]) -> None:
    """Cache the ops of ``actions`` in chips at ``unit`` (bets converted as :func:`_convert` does)."""
    if len(table) > _CACHED:
        table.clear()
    for action in actions:
        if action in table:
            continue
        op = _decoded(action)
        if op is None:
            return
        if op[0] == BET_RAISE:
            op = (BET_RAISE, op[1], _convert([op[2]], unit)[0])
            if op[2] is None or op[2] > MAX_CHIPS:  # left to the careful path, which refuses it
                return
        table[action] = op


def _op(words: list[str], action: str) -> tuple[int, int, Any]:
    first = words[0]
    if first == "d":
        if len(words) == 4 and words[1] == "dh":
            return DH, _player(words[2], action), _cards(words[3], action)
        if len(words) == 3 and words[1] == "db":
            return DB, -1, _cards(words[2], action)
        raise _Refuse("malformed", f"has the action {action!r}; a dealing action is 'd dh pN CARDS' or 'd db CARDS'")
    who = _player(first, action)
    if len(words) == 2:
        if words[1] == "f":
            return FOLD, who, 0
        if words[1] == "cc":
            return CHECK_CALL, who, 0
        if words[1] == "sm":
            return SHOW, who, ()
    elif len(words) == 3:
        if words[1] == "cbr":
            try:
                value = float(words[2].replace(",", "")) if "." in words[2] else int(words[2].replace(",", ""))
            except ValueError:
                raise _Refuse("malformed", f"has the action {action!r} whose amount is not a number") from None
            return BET_RAISE, who, value
        if words[1] == "sm":
            return SHOW, who, () if words[2] == "-" else _cards(words[2], action)
        if words[1] == "sd":
            raise _Refuse("variant", f"has the draw action {action!r}; matchdb reads no-limit Texas hold'em only")
    raise _Refuse("malformed", f"has the action {action!r}; expected 'pN f', 'pN cc', 'pN cbr AMOUNT' or 'pN sm CARDS'")


def _player(word: str, action: str) -> int:
    if word[:1] == "p" and word[1:].isdigit() and 1 <= int(word[1:]) <= MAX_PLAYERS:
        return int(word[1:]) - 1
    raise _Refuse("malformed", f"has the action {action!r} for player {word!r}; expected p1 to p{MAX_PLAYERS}")


def _cards(text: str, action: str) -> tuple[int, ...]:
    if len(text) % 2:
        raise _Refuse("malformed", f"has the action {action!r} whose cards {text!r} are not pairs of characters")
    out = []
    for k in range(0, len(text), 2):
        pair = text[k:k + 2]
        card = _CARD.get(pair)
        if card is None:
            if "?" not in pair:
                raise _Refuse("malformed", f"has the action {action!r} with the card {pair!r}; expected like 'Ah' or '??'")
            card = UNKNOWN
        out.append(card)
    return tuple(out)


def _unit(values: list[int | float | Decimal]) -> int | None:
    """The smallest scale among 1, 100, 10, 1000, ... 10**6 that makes every amount a whole number, or None."""
    others = [v for v in values if type(v) is not int]
    if not others:
        return 1
    finite: list[float | Decimal] = []
    for v in others:
        if type(v) is float:
            if math.isnan(v):
                return None
            if -1e300 < v < 1e300:
                finite.append(v)
        elif isinstance(v, Decimal):
            if v.is_nan():
                return None
            if v.is_finite():
                finite.append(v)
        else:
            return None
    for scale in _SCALES:
        for v in finite:
            x = v * scale
            r = round(x)
            if type(x) is float:
                if abs(x - r) > 1e-7 * (max(1.0, x)):
                    break
            elif x != r:
                break
        else:
            return scale
    return None


def _convert(values: list[Any], unit: int) -> list[int | None]:  # ints, floats and Decimals
    """Amounts as whole chips at ``unit`` per currency unit; None for an unlimited (``inf``) amount."""
    if unit == 1:
        return [v if type(v) is int else (int(v) if -1e300 < v < 1e300 else None) for v in values]
    return [v * unit if type(v) is int else (round(v * unit) if -1e300 < v < 1e300 else None) if type(v) is float
            else (int(v * unit) if v.is_finite() else None) for v in values]


def _digits(chips: int) -> str:
    """A chip count for a message: in full up to 30 digits, else its number of digits."""
    text = str(chips)
    return f"{chips:,} chips" if len(text) <= 30 else f"{len(text)} digits"


def _exponent(unit: int) -> int:
    return len(str(unit)) - 1


# -- helpers ------------------------------------------------------------------------------------------


def _pokerkit() -> ModuleType:
    try:
        import pokerkit
    except ImportError:
        raise HandsError("Reading hand histories needs pokerkit; install it with pip install 'matchdb[hands]'.") from None
    return pokerkit


def _toml() -> tuple[Callable[[str], dict[str, Any]], tuple[type[Exception], ...]]:
    """(loads, error types): toml_rs when installed, else the standard library's tomllib (as pokerkit reads)."""
    try:
        import toml_rs

        return toml_rs.loads, (toml_rs.TOMLDecodeError, ValueError)
    except ImportError:
        import tomllib

        return tomllib.loads, (tomllib.TOMLDecodeError, ValueError)


def _site_parser(site: str) -> type[REParser]:
    notation = _pokerkit().notation
    classes = {
        "pokerstars": notation.PokerStarsParser,
        "fulltilt": notation.FullTiltPokerParser,
        "absolute": notation.AbsolutePokerParser,
        "ipoker": notation.IPokerNetworkParser,
        "ongame": notation.OngameNetworkParser,
        "partypoker": notation.PartyPokerParser,
    }
    parser: type[REParser] = classes[site]
    return parser


def _detect_site(text: str) -> str | None:
    head = text[:20_000]
    for site in SITES:
        if re.search(_site_parser(site).HAND, head):
            return site
    return None


def _line_after(found: int) -> int:
    """The start of the line after the newline at ``found``, or -1 when ``found`` is -1 (nothing found)."""
    return found + 1 if found >= 0 else -1


def _header(line: str) -> str | None:
    """The hand number of a section header line (``[12]``), ``'[12]'`` for ``[[12]]`` (refused), else None."""
    if line.startswith("[["):
        match = _ARRAY_SECTION.match(line.strip())
        return f"[{match.group(1).strip(chr(39) + chr(34))}]" if match else None
    match = _SECTION.match(line.strip())
    return match.group(1).strip("'\"") if match else None


def _has_content(text: str) -> bool:
    """Whether text before a file's first section header holds anything but blank lines and comments."""
    return any(x.strip() and not x.lstrip().startswith("#") for x in text.split("\n"))


def _looks_like_phh(text: str) -> bool:
    return bool(re.search(r"^\s*variant\s*=", text[:5000], re.MULTILINE))


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0].rstrip(".") if text else type(error).__name__


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip().rstrip(".") if lines else "no reason given"
