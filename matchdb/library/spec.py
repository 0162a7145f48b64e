"""A library's spot: what is solved on every flop, read from a TOML file and checked before any work.

A spec names the two ranges, the starting pot and effective stack (whole
chips), the bet and raise sizes (the solver's syntax: one text for every
street, or a table by street and player as :meth:`matchdb.MatchDB.solve`
takes them), the target exploitability in % of the pot and the most
iterations. Every other key is one of the solver's options with its default.
A range must weigh a hand as it weighs the same hand in other suits (``AKs``,
``AhKh:0.5,AsKs:0.5,...`` with all four at one weight): the library solves one
flop of each suit orbit and answers the others by renaming suits::

    name = "toy"
    oop = "AA,KK"
    ip = "QQ,JJ"
    pot = 100
    stack = 100
    bet = "a"
    target = 1.0

>>> spec = LibrarySpec.from_toml('name = "toy"\\noop = "AA,KK"\\nip = "QQ,JJ"\\npot = 100\\nstack = 100\\nbet = "a"')
>>> spec.name, spec.target, spec.digest()[:12]
('toy', 1.0, '2d871e7d7725')
>>> LibrarySpec.from_toml('name = "toy"\\noop = "AA"\\nip = "KK"\\npot = 100\\nstack = 100\\nbets = "a"')
Traceback (most recent call last):
...
matchdb.library.spec.LibraryError: The spec has an unknown key 'bets'; expected some of: name, description, oop, ip, pot, stack, bet, raise, donk, rake, rake_cap, add_allin, force_allin, merge, target, max_iterations, compressed.
>>> LibrarySpec.from_toml('name = "toy"\\noop = "AA,AhKh"\\nip = "KK"\\npot = 100\\nstack = 100')
Traceback (most recent call last):
...
matchdb.library.spec.LibraryError: The spec's oop range weighs AhKh at 1 but AsKs, in other suits, at 0; expected every suit renaming of a hand at one weight (the library answers a flop's suit renamings by renaming its solution).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from matchdb.errors import MatchdbError

__all__ = ["LibraryError", "FlopNotStoredError", "LibrarySpec", "read_spec"]


class LibraryError(MatchdbError):
    """A library's spec, files or question is not what was expected."""


class FlopNotStoredError(LibraryError):
    """The library holds no solution of the flop asked about (a server answers 404)."""


#: Keys a spec may hold, with the types they take (sizes: text or a table of texts).
_KEYS: dict[str, tuple[type, ...]] = {
    "name": (str,), "description": (str,), "oop": (str,), "ip": (str,), "pot": (int,), "stack": (int,),
    "bet": (str, dict), "raise": (str, dict), "donk": (str, dict), "rake": (int, float), "rake_cap": (int, float),
    "add_allin": (int, float), "force_allin": (int, float), "merge": (int, float), "target": (int, float),
    "max_iterations": (int,), "compressed": (bool,),
}
_REQUIRED = ("name", "oop", "ip", "pot", "stack")


@dataclass(frozen=True)
class LibrarySpec:
    """One spot solved on every flop (see the module's docstring); :meth:`solve_options` are the solver's keywords."""

    name: str
    oop: str
    ip: str
    pot: int
    stack: int
    bet: Any = ""
    raise_: Any = ""
    donk: Any = None
    rake: float = 0.0
    rake_cap: float = 0.0
    add_allin: float = 1.5
    force_allin: float = 0.15
    merge: float = 0.1
    target: float = 1.0
    max_iterations: int = 1000
    compressed: bool = False
    description: str = field(default="", compare=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "The spec") -> LibrarySpec:
        """A spec from its keys (as a TOML file holds them), each checked: one sentence names the first fault."""
        for key, value in data.items():
            if key not in _KEYS:
                raise LibraryError(f"{where} has an unknown key {key!r}; expected some of: {', '.join(_KEYS)}.")
            kinds = _KEYS[key]
            if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
                wanted = " or ".join({"str": "text", "dict": "a table of texts by street", "int": "a whole number",
                                      "float": "a number", "bool": "true or false"}[k.__name__] for k in kinds)
                raise LibraryError(f"{where}'s {key} is {value!r}; expected {wanted}.")
        missing = [key for key in _REQUIRED if key not in data]
        if missing:
            raise LibraryError(f"{where} lacks {', '.join(missing)}; a spec names at least {', '.join(_REQUIRED)}.")
        for key, low, high in (("pot", 1, 10**9), ("stack", 1, 10**9), ("target", 0.001, 100.0),
                               ("max_iterations", 1, 100_000), ("rake", 0.0, 1.0), ("rake_cap", 0.0, 1e12)):
            value = data.get(key)
            if value is not None and not (math.isfinite(value) and low <= value <= high):
                raise LibraryError(f"{where}'s {key} is {value!r}; expected {low:g}..{high:g}.")
        if not data["name"].strip() or any(c in data["name"] for c in "/\\\n"):
            raise LibraryError(f"{where}'s name {data['name']!r} is not one line of text without slashes.")
        for key in ("oop", "ip"):
            _check_suit_blind(data[key], f"{where}'s {key} range")
        values = {("raise_" if key == "raise" else key): value for key, value in data.items()}
        for key in ("rake", "rake_cap", "add_allin", "force_allin", "merge", "target"):
            if key in values:
                values[key] = float(values[key])
        return cls(**values)

    @classmethod
    def from_toml(cls, text: str, where: str = "The spec") -> LibrarySpec:
        """A spec from the text of a TOML file."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise LibraryError(f"{where} is not TOML ({error}).") from None
        return cls.from_dict(data, where)

    def to_dict(self) -> dict[str, Any]:
        """The spec's keys as a TOML file writes them (``raise``, not ``raise_``)."""
        out = asdict(self)
        out["raise"] = out.pop("raise_")
        return {key: value for key, value in out.items() if value is not None}  # TOML has no null

    def digest(self) -> str:
        """SHA-256 of what is solved (every key but the description): a library is bound to it."""
        solved = {key: value for key, value in self.to_dict().items() if key != "description"}
        return hashlib.sha256(json.dumps(solved, sort_keys=True).encode()).hexdigest()

    def solve_options(self) -> dict[str, Any]:
        """The keywords of :func:`matchdb.solver.solve` after the board (ranges, pot, stack, sizes, options)."""
        return {"oop": self.oop, "ip": self.ip, "pot": self.pot, "stack": self.stack, "bet": self.bet,
                "raise_": self.raise_, "donk": self.donk, "rake": self.rake, "rake_cap": self.rake_cap,
                "add_allin": self.add_allin, "force_allin": self.force_allin, "merge": self.merge,
                "target": self.target, "max_iterations": self.max_iterations, "compressed": self.compressed}


@functools.cache
def _renamings() -> np.ndarray:
    """(24, 1,326): for each renaming of suits, the position in matchdb's hand order of each hand renamed."""
    from matchdb.core.canonical import PERMUTATIONS
    from matchdb.core.hole_cards import HAND_HIGH, HAND_LOW, hand_positions

    rows = []
    for perm in np.asarray(PERMUTATIONS):
        suits = perm[np.arange(52) // 13] * 13 + np.arange(52) % 13  # card ids are suit x 13 + rank
        rows.append(hand_positions(suits[HAND_HIGH], suits[HAND_LOW]))
    return np.array(rows)


def _check_suit_blind(text: str, what: str) -> None:
    """``text`` parses as a range that weighs every suit renaming of a hand alike; else one sentence."""
    from matchdb.core.cards import format_cards
    from matchdb.core.hole_cards import HAND_HIGH, HAND_LOW
    from matchdb.core.ranges import range_weights
    from matchdb.errors import MatchdbError

    try:
        weights = np.asarray(range_weights(text))
    except MatchdbError as error:
        raise LibraryError(f"{what} is not a range: {error}") from None
    for renamed in _renamings():
        differ = np.flatnonzero(weights[renamed] != weights)
        if differ.size:
            h = int(differ[0])
            other = int(renamed[h])
            name = format_cards([int(HAND_HIGH[h]), int(HAND_LOW[h])])
            other_name = format_cards([int(HAND_HIGH[other]), int(HAND_LOW[other])])
            raise LibraryError(f"{what} weighs {name} at {weights[h]:g} but {other_name}, in other suits, at "
                               f"{weights[other]:g}; expected every suit renaming of a hand at one weight (the library "
                               "answers a flop's suit renamings by renaming its solution).")


def read_spec(path: str | os.PathLike[str]) -> LibrarySpec:
    """The spec in the TOML file at ``path``; a missing or malformed file is one sentence."""
    where = f"The spec '{os.fspath(path)}'"
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        raise LibraryError(f"{where} does not exist; expected a TOML file like data/library/srp-100bb.toml.") from None
    except (OSError, UnicodeDecodeError) as error:
        raise LibraryError(f"{where} cannot be read ({error.__class__.__name__}); expected a TOML text file.") from None
    return LibrarySpec.from_toml(text, where)
