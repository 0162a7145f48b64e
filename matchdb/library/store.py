"""A library's files: a zarr group per flop of its flop's and turn's strategies and EVs, a manifest entry per flop,
the spec.

Layout of a library folder (``NAME.zarr``)::

    zarr.json                the root group; attributes: format, version, the spec and its SHA-256
    flops/NNNN/              one zarr group per solved canonical flop (NNNN its index, 0..1754): the flop's
                             decisions (four arrays over decision, action and hand), the hands' categories and the
                             turn's decisions (two arrays), hands in matchdb's 1,326-hand order (real cards of the
                             canonical flop):
        strategy   uint16    each action's frequency x 65,535 (0 for a hand not in the range there)
        ev         int16     each action's EV in chips x 32,767 / the decision's ev_scale (-32,768: no value)
        combos     float32   (decision, hand): how often the player to act holds the hand there
        equity     uint16    (decision, hand): the hand's equity x 65,534 (65,535: no value)
        categories uint8     (2, hand): each hand's made hand on the flop (its place in MADE_HANDS; 255 for a hand
                             in neither range) and its draws (bit k: DRAWS[k])
        turn_strategy uint8  (turn decision, action, hand): each action's frequency as 255 x its square root, rounded
                             (a small frequency keeps a digit or two; decoded, a hand's frequencies add up to 1)
        turn_ev    int16     (turn decision, action, hand): each action's EV in steps of the manifest's ev_step
                             (half a percent of the spec's pot, or more where the stack needs it; -32,768: no value)
    manifest/NNNN.json       the flop's decisions (lines, players, actions, ev_scale), the turn's (``turn``: the
                             cards stored, ev_step, and for each line that closes the flop its turn decisions),
                             exploitability, iterations, seconds, its table's SHA-256 and each array's SHA-256;
                             written last: a flop is stored once its entry exists

Each flop group is written under a hidden name and renamed into place, then its manifest entry is written the
same way: a build killed at any moment leaves whole flops and, at most, hidden leftovers the next build removes.
The stored decisions are every decision of the flop (the first street), the same lines on every flop, and every
decision of the turn after each flop line that closes the street with chips left to bet, on every turn card but
those that a renaming of suits which keeps the flop makes another's (a rainbow flop keeps its 49 turn cards, a
monotone one 23): the manifest's ``turn`` lists the cards stored and, for each such line, its turn decisions,
numbered line by line, card by card. The turn's decisions are smaller than the flop's, so that a spot's library
fits about 2 GB (``scripts/library_turn_size.py``): the two players' combos are not stored (the spec's ranges times
the stored frequencies along the line give them) nor the equities (computed from those ranges when asked).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from matchdb.core.cards import format_cards
from matchdb.core.hole_cards import N_HANDS
from matchdb.library.spec import FlopNotStoredError, LibraryError, LibrarySpec
from matchdb.solver.categories import DRAWS, MADE_HANDS, category

__all__ = ["FORMAT", "VERSION", "FlopAnswers", "extract", "create_library", "library_spec", "write_flop",
           "read_flop", "turn_cards", "turn_ev_step", "decode_turn_frequencies", "decode_turn_ev", "stored_flops",
           "remove_partials", "array_digest", "LibraryFiles", "FolderFiles"]

FORMAT = "matchdb-library"
VERSION = 3  # 2: each flop's hand categories stored; 3: the turn's decisions
#: Arrays of a stored flop, in the order the manifest lists their digests.
ARRAYS = ("strategy", "ev", "combos", "equity", "categories", "turn_strategy", "turn_ev")
#: The turn's EVs are stored in steps of this share of the spec's pot (finer than the solve's own precision, a
#: target exploitability of about 1 % of the pot).
TURN_EV_STEP = 0.005
#: A stored EV's code for "no value" (a hand not in the range, or an action without a value).
NO_EV = -32768
_NO_EQUITY = 65535
_NO_CATEGORY = 255


@dataclass
class FlopAnswers:
    """One flop's stored decisions: ``meta`` (lines, players, actions, ev_scale, the solve's figures) and the
    five arrays of the module's layout."""

    index: int
    meta: dict[str, Any]
    strategy: np.ndarray
    ev: np.ndarray
    combos: np.ndarray
    equity: np.ndarray
    categories: np.ndarray
    turn_strategy: np.ndarray
    turn_ev: np.ndarray

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in ARRAYS}


def array_digest(array: np.ndarray) -> str:
    """SHA-256 of an array's little-endian bytes, with its dtype and shape."""
    data = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    head = f"{data.dtype.str}{data.shape}".encode()
    return hashlib.sha256(head + data.tobytes()).hexdigest()


def _decisions(root: Any) -> Iterator[Any]:
    """Every decision of ``root``'s street below it (a SolutionNode), in preorder."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.kind != "action" or node.street != root.street:
            continue
        yield node
        stack.extend(node.play(action) for action in reversed(node.actions))


def _street_ends(root: Any) -> Iterator[Any]:
    """The deals that close ``root``'s street (a call, or two checks), in preorder."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.kind == "action" and node.street == root.street:
            stack.extend(node.play(action) for action in reversed(node.actions))
        elif node.kind == "chance" and node.street == root.street:
            yield node


def turn_cards(flop: Iterable[int]) -> dict[int, tuple[int, int]]:
    """For each turn card of ``flop`` (card ids), the stored card it is answered from and the renaming of suits
    (0..23) that keeps the flop and makes the card that one: the least card of each class.

    >>> from matchdb.core.cards import parse_cards
    >>> sorted(set(rep for rep, _ in turn_cards(parse_cards("2c3c4c")).values())).__len__()  # monotone
    23
    >>> len(set(rep for rep, _ in turn_cards(parse_cards("Kh9d4c")).values()))  # rainbow
    49
    """
    from matchdb.core.canonical import rename

    cards = [int(c) for c in flop]
    keeps = [perm for perm in range(24) if sorted(rename(cards, perm)) == sorted(cards)]
    out = {}
    for card in range(52):
        if card in cards:
            continue
        images = {perm: rename([card], perm)[0] for perm in keeps}
        rep = min(images.values())
        out[card] = (rep, next(perm for perm, image in images.items() if image == rep))
    return out


def _encode_frequencies(strategy: np.ndarray) -> np.ndarray:
    """(actions, hands) frequencies as 8-bit codes of their square roots (255 x sqrt(f), rounded): a small frequency
    keeps its first digit or two (0.001 is 8/255 squared), which a range carried along a line needs; a hand's
    frequencies are made to add up to 1 again when decoded (:func:`decode_turn_frequencies`)."""
    coded: np.ndarray = np.rint(np.sqrt(np.clip(strategy, 0.0, 1.0)) * 255.0).astype(np.uint8)
    return coded


def decode_turn_frequencies(coded: np.ndarray) -> np.ndarray:
    """(actions, hands) frequencies from :func:`_encode_frequencies`'s codes of a decision's actions, each hand's
    adding up to 1 (0 for a hand with no codes: not in the range there)."""
    squares = (coded.astype(np.float64) / 255.0) ** 2
    total = squares.sum(axis=0)
    out: np.ndarray = np.divide(squares, total, out=np.zeros_like(squares), where=total > 0)
    return out


def turn_ev_step(pot: int, stack: int) -> float:
    """The step the turn's EVs are stored in: :data:`TURN_EV_STEP` of the pot, or more where an EV could come near
    32,767 steps (a hand can at most win the pot and the opponent's stack, or lose its own: 32,000 steps cover it)."""
    return max(TURN_EV_STEP * pot, (pot + 2 * stack) / 32000)


def decode_turn_ev(coded: np.ndarray, step: float) -> np.ndarray:
    """Chips from the turn's stored EVs (in steps of ``step``; NaN where none is stored)."""
    return np.where(coded == NO_EV, np.nan, coded.astype(np.float64) * step)


def _turn_decisions(deal: Any, card: str) -> list[Any]:
    """The turn's decisions after ``deal`` with ``card`` dealt, in preorder; none where no hand of a range can
    reach that card."""
    from matchdb.solver import SolverError

    try:
        dealt = deal.play(card)
    except SolverError:
        return []
    return list(_decisions(dealt))


def _extract_turn(solution: Any, spot: Any) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """The turn's decisions after each flop line that closes the street, on each stored turn card."""
    reps = sorted({rep for rep, _ in turn_cards(spot.board[:3]).values()})
    names = [format_cards([card]) for card in reps]
    ends: list[dict[str, Any]] = []
    nodes: list[Any] = []
    for deal in _street_ends(solution.root):
        below = [_turn_decisions(deal, name) for name in names]
        known = next((card_nodes for card_nodes in below if card_nodes), None)
        if known is None:
            continue  # all-in (nothing left to decide), or a line the solution never plays
        lines = [node.line[len(deal.line) + 1:] for node in known]
        ends.append({"line": list(deal.line), "first": len(nodes), "lines": [list(line) for line in lines],
                     "players": [node.player for node in known], "actions": [node.actions for node in known],
                     "pots": [node.pot for node in known]})
        for card_nodes in below:
            if card_nodes:
                assert [node.line[len(deal.line) + 1:] for node in card_nodes] == lines, "the turn's tree differs by card"
            nodes.extend(card_nodes or [None] * len(lines))  # a card no hand of a range reaches: no values
    options = spot.options
    step = turn_ev_step(options.pot, options.stack)
    most = max((len(node.actions) for node in nodes if node is not None), default=1)
    strategy = np.zeros((len(nodes), most, N_HANDS), dtype=np.uint8)
    ev = np.full((len(nodes), most, N_HANDS), NO_EV, dtype=np.int16)
    for k, node in enumerate(nodes):
        if node is None:
            continue
        p = 0 if node.player == "OOP" else 1
        where = spot.hands[p].index
        n = len(node.actions)
        inside = node.combos(p) > 0
        strategy[k, :n][:, where] = np.where(inside, _encode_frequencies(node.strategy), 0)
        values = node.action_ev()
        finite = np.isfinite(values) & inside
        coded = np.clip(np.rint(np.where(finite, values, 0.0) / step), -32767, 32767)
        ev[k, :n][:, where] = np.where(finite, coded, NO_EV).astype(np.int16)
    meta = {"cards": names, "ev_step": step, "ends": ends}
    return meta, strategy, ev


def extract(solution: Any, index: int, table_sha256: str) -> FlopAnswers:
    """The stored decisions of a solved flop (a :class:`matchdb.solver.Solution` on canonical flop ``index``)."""
    nodes = list(_decisions(solution.root))
    most = max(len(node.actions) for node in nodes)
    strategy = np.zeros((len(nodes), most, N_HANDS), dtype=np.uint16)
    ev = np.full((len(nodes), most, N_HANDS), NO_EV, dtype=np.int16)
    combos = np.zeros((len(nodes), N_HANDS), dtype=np.float32)
    equity = np.full((len(nodes), N_HANDS), _NO_EQUITY, dtype=np.uint16)
    scales = []
    spot = solution.spot
    for k, node in enumerate(nodes):
        p = 0 if node.player == "OOP" else 1
        where = spot.hands[p].index
        held = node.combos(p)
        inside = held > 0
        combos[k, where] = held
        strategy[k, : len(node.actions)][:, where] = np.where(inside, np.rint(node.strategy * 65535), 0).astype(np.uint16)
        values = node.action_ev()
        finite = np.isfinite(values) & inside
        scale = float(np.abs(values[finite]).max()) if finite.any() else 0.0
        scales.append(scale)
        coded = np.rint(values / scale * 32767) if scale > 0 else np.zeros_like(values)
        ev[k, : len(node.actions)][:, where] = np.where(finite, coded, NO_EV).astype(np.int16)
        eq = node.equity(p)
        good = np.isfinite(eq) & inside
        equity[k, where] = np.where(good, np.rint(np.where(good, eq, 0) * 65534), _NO_EQUITY).astype(np.uint16)
    categories = np.zeros((2, N_HANDS), dtype=np.uint8)
    categories[0] = _NO_CATEGORY
    board = [int(c) for c in spot.board[:3]]
    for hands in spot.hands:
        for position, cards in zip(hands.index, hands.cards, strict=True):
            made, drawn = category([int(c) for c in cards], board)
            categories[0, position] = MADE_HANDS.index(made)
            categories[1, position] = sum(1 << DRAWS.index(d) for d in drawn)
    turn, turn_strategy, turn_ev = _extract_turn(solution, spot)
    meta = {
        "index": index, "board": solution.board, "table_sha256": table_sha256, "turn": turn,
        "lines": [list(node.line) for node in nodes], "players": [node.player for node in nodes],
        "actions": [node.actions for node in nodes], "pots": [node.pot for node in nodes], "ev_scale": scales,
        "exploitability": solution.exploitability, "exploitability_pct": solution.exploitability_pct,
        "iterations": solution.iterations, "seconds": solution.seconds,
        "oop_ev": solution.oop_ev, "ip_ev": solution.ip_ev, "oop_equity": solution.oop_equity,
    }
    return FlopAnswers(index, meta, strategy, ev, combos, equity, categories, turn_strategy, turn_ev)


def decode_ev(coded: np.ndarray, scale: float) -> np.ndarray:
    """Chips from stored EVs (NaN where none is stored)."""
    return np.where(coded == NO_EV, np.nan, coded.astype(np.float64) * scale / 32767)


def decode_equity(coded: np.ndarray) -> np.ndarray:
    return np.where(coded == _NO_EQUITY, np.nan, coded.astype(np.float64) / 65534)


def decode_strategy(coded: np.ndarray) -> np.ndarray:
    return coded.astype(np.float64) / 65535


def decode_categories(coded: np.ndarray) -> tuple[list[str], list[str]]:
    """Each hand's made hand ('' where none is stored) and draws (names joined by ", ") from stored codes."""
    made = [MADE_HANDS[c] if c != _NO_CATEGORY else "" for c in coded[0].tolist()]
    names = [", ".join(d for k, d in enumerate(DRAWS) if bits >> k & 1) for bits in range(1 << len(DRAWS))]
    return made, [names[bits] for bits in coded[1].tolist()]


# -- files ------------------------------------------------------------------------------------------

def create_library(root: Path, spec: LibrarySpec) -> None:
    """Make the library folder for ``spec``, or check that the one at ``root`` was begun for the same spec."""
    import zarr

    if (root / "zarr.json").exists():
        found = library_spec(FolderFiles(root))
        if found.digest() != spec.digest():
            raise LibraryError(f"The library '{root}' was begun for the spec {found.name!r} (SHA-256 "
                               f"{found.digest()[:12]}...), not this one ({spec.digest()[:12]}...); expected the same "
                               "spec to resume it, or another folder.")
        return
    if root.exists() and any(root.iterdir()):
        raise LibraryError(f"The path '{root}' exists and is not a matchdb library; expected an empty or missing folder.")
    root.mkdir(parents=True, exist_ok=True)
    group = zarr.open_group(root, mode="w", attributes={"format": FORMAT, "version": VERSION, "spec": spec.to_dict(),
                                                         "spec_sha256": spec.digest()})
    group.create_group("flops")
    (root / "manifest").mkdir()


def library_spec(files: LibraryFiles) -> LibrarySpec:
    """The spec a library was built for; anything else at its place is one sentence."""
    where = files.name
    try:
        text = files.read("zarr.json")
    except OSError as error:
        raise LibraryError(f"The library '{where}' cannot be read ({error.__class__.__name__}).") from None
    if text is None:
        raise LibraryError(f"No library exists at '{where}'; expected a folder made by 'matchdb library build' "
                           "or a file made by 'matchdb library pack'.")
    try:
        attrs = json.loads(text).get("attributes", {})
    except (ValueError, AttributeError) as error:
        raise LibraryError(f"The library '{where}' cannot be read ({error.__class__.__name__}).") from None
    if attrs.get("format") != FORMAT:
        raise LibraryError(f"The folder '{where}' is not a matchdb library; expected one made by 'matchdb library build'.")
    if attrs.get("version") != VERSION:
        raise LibraryError(f"The library '{where}' is format version {attrs.get('version')!r}; this matchdb reads {VERSION}.")
    return LibrarySpec.from_dict(attrs["spec"], f"The library '{where}'")


def remove_partials(root: Path, indices: Iterable[int]) -> None:
    """Hidden leftovers of a build killed while writing one of the flops ``indices`` (only those: builds of other
    flops, such as the other tasks of a SLURM array, may be writing theirs beside it)."""
    for index in indices:
        for leftover in (root / "flops" / f".{index:04d}.partial", root / "manifest" / f".{index:04d}.json.partial"):
            if leftover.is_dir():
                shutil.rmtree(leftover, ignore_errors=True)
            elif leftover.exists():
                leftover.unlink(missing_ok=True)


def stored_flops(files: LibraryFiles) -> list[int]:
    """The canonical flops whose manifest entries exist, in order."""
    names = files.members("manifest")
    return sorted(int(n[:4]) for n in names if len(n) == 9 and n[:4].isdigit() and n.endswith(".json"))


def write_flop(root: Path, answers: FlopAnswers) -> None:
    """Store one flop (its group, then its manifest entry, each renamed into place)."""
    import zarr
    from zarr.codecs import BloscCodec, ZstdCodec

    name = f"{answers.index:04d}"
    final = root / "flops" / name
    hidden = root / "flops" / f".{name}.partial"
    shutil.rmtree(hidden, ignore_errors=True)
    group = zarr.open_group(hidden, mode="w", attributes={"index": answers.index})
    for key, data in answers.arrays().items():
        # the turn's arrays: zstd in blosc, bytes shuffled (a 16-bit EV's high bytes side by side): 20 % smaller
        codec = (BloscCodec(cname="zstd", clevel=9, shuffle="shuffle") if key.startswith("turn_")
                 else ZstdCodec(level=10, checksum=True))
        array = group.create_array(key, shape=data.shape, chunks=data.shape, dtype=data.dtype, compressors=codec)
        array[...] = data
    shutil.rmtree(final, ignore_errors=True)
    os.rename(hidden, final)
    entry = dict(answers.meta, digests={key: array_digest(data) for key, data in answers.arrays().items()})
    partial = root / "manifest" / f".{name}.json.partial"
    partial.write_text(json.dumps(entry))
    os.rename(partial, root / "manifest" / f"{name}.json")


def read_flop(files: LibraryFiles, index: int) -> FlopAnswers:
    """One stored flop, each array checked against its manifest digest."""
    import zarr
    from zarr.buffer import default_buffer_prototype
    from zarr.storage import MemoryStore

    name = f"{index:04d}"
    where = files.name
    entry = files.read(f"manifest/{name}.json")
    if entry is None:
        raise FlopNotStoredError(f"The library '{where}' holds no solution of flop {index}; build it with "
                                 f"'matchdb library build --flops {index}'.")
    meta = json.loads(entry)
    arrays = {}
    for key in ARRAYS:
        folder = f"flops/{name}/{key}"
        try:
            members = {member: files.read(f"{folder}/{member}") for member in files.members(folder, deep=True)}
            store = MemoryStore({member: default_buffer_prototype().buffer.from_bytes(data)
                                 for member, data in members.items() if data is not None}, read_only=True)
            arrays[key] = np.asarray(zarr.open_array(store, mode="r")[...])
        except Exception as error:  # zarr raises many kinds for a damaged array
            raise LibraryError(f"Flop {index} of the library '{where}' cannot be read ({error.__class__.__name__}); "
                               "rebuild it.") from None
    digests = meta.pop("digests", {})
    for key, data in arrays.items():
        if digests.get(key) != array_digest(data):
            raise LibraryError(f"Flop {index} of the library '{where}' has its {key} altered or damaged (SHA-256 differs "
                               "from the manifest); rebuild it.")
    return FlopAnswers(index, meta, **arrays)


class LibraryFiles(Protocol):
    """Where a library's files are read from: a folder (:class:`FolderFiles`) or a packed file
    (:class:`matchdb.library.packed.PackedFiles`)."""

    name: str

    def read(self, member: str) -> bytes | None:
        """The bytes of the file ``member`` (a path inside the library, ``/``-separated), or None when absent."""
        ...

    def members(self, folder: str, deep: bool = False) -> list[str]:
        """Names of the files in ``folder`` (every file below it, relative to it, with ``deep``)."""
        ...


class FolderFiles:
    """A library folder's files."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.name = str(root)

    def read(self, member: str) -> bytes | None:
        try:
            return (self.root / member).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None

    def members(self, folder: str, deep: bool = False) -> list[str]:
        base = self.root / folder
        if not base.is_dir():
            return []
        found = base.rglob("*") if deep else base.iterdir()
        return sorted(str(p.relative_to(base)) for p in found if p.is_file())
