"""The report answer: a range against a range on every flop, flop by flop and by texture, with its flop hits.

Computed by :func:`matchdb.equity.reports.flop_report` (how every flop is
covered and how the aggregates are weighted: see there) and returned by
:func:`matchdb.equity.reports.report`.
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.answers.base import Answer, plain, require_pandas
from matchdb.core.canonical import flop_orbits
from matchdb.core.cards import RANKS, format_cards
from matchdb.errors import MatchdbError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["HITS", "TEXTURES", "FlopReport"]

#: Made hands and draws counted on the flop, in report order (defined in :mod:`matchdb.equity.reports`).
HITS = (
    "pair_or_better",
    "two_pair",
    "set",
    "trips",
    "straight",
    "flush",
    "full_house_plus",
    "flush_draw",
    "oesd",
    "gutshot",
)
#: Texture keys of a flop, and their values in display order (defined in :mod:`matchdb.equity.reports`).
TEXTURES = {
    "suits": ("monotone", "two-tone", "rainbow"),
    "pairing": ("unpaired", "paired", "trips"),
    "high_card": tuple(reversed(RANKS)),
    "connectedness": ("connected", "semi-connected", "disconnected"),
}


@dataclass(frozen=True, eq=False)
class FlopReport(Answer):
    """A hero range against a villain range on every flop, flop by flop and by texture.

    Entries are the canonical flops, each standing for ``count`` flops (its
    orbit), when both ranges are suit-symmetric, else the actual flops
    (``count`` 1). Arrays are read-only and aligned with ``flops``.

    Attributes
    ----------
    hero, villain : the ranges as given (``'random'`` for none).
    symmetric : whether entries are canonical flops standing for their orbits.
    flops : text of each entry's flop (the canonical one when ``symmetric``).
    index : canonical index of each entry.
    count : how many of the 22,100 flops each entry stands for.
    equity : the hero range's exact equity on the entry's flop (NaN where no deal is possible).
    deals : the weight of (hero, villain, runout) deals on one of its flops; ``count x deals`` weighs the equity.
    hero_weight : the hero weight live on one of its flops; ``count x hero_weight`` weighs the hits.
    hits : :data:`HITS` name -> the share of the live hero weight making it on the flop.
    textures : :data:`TEXTURES` key -> each entry's value.
    seconds : how long the report took.
    """

    hero: str
    villain: str
    symmetric: bool
    flops: tuple[str, ...]
    index: np.ndarray
    count: np.ndarray
    equity: np.ndarray
    deals: np.ndarray
    hero_weight: np.ndarray
    hits: dict[str, np.ndarray]
    textures: dict[str, tuple[str, ...]]
    seconds: float = field(default=0.0)

    def __post_init__(self) -> None:
        for array in (self.index, self.count, self.equity, self.deals, self.hero_weight, *self.hits.values()):
            array.flags.writeable = False

    def __repr__(self) -> str:
        return f"FlopReport({self.hero!r} vs {self.villain!r}: {self.total_flops:,} flops, equity {self.overall_equity():.4f})"

    @property
    def total_flops(self) -> int:
        """How many of the 22,100 flops the report covers."""
        return int(self.count.sum())

    def _equity_weight(self) -> np.ndarray:
        weight: NDArray[np.float64] = self.count * self.deals
        return weight

    def _hit_weight(self) -> np.ndarray:
        weight: NDArray[np.float64] = self.count * self.hero_weight
        return weight

    def overall_equity(self) -> float:
        """The hero's equity over every flop covered: the preflop equity when all 22,100 are."""
        weight = self._equity_weight()
        live = weight > 0
        return float((weight[live] * self.equity[live]).sum() / weight[live].sum())

    def overall_hits(self) -> dict[str, float]:
        """How often the hero range makes each hit, over every flop covered."""
        weight = self._hit_weight()
        return {name: float((weight * share).sum() / weight.sum()) for name, share in self.hits.items()}

    def rows(self, sort: str | None = None, descending: bool = True, expand: bool = False) -> list[dict[str, Any]]:
        """One dict per entry (or per actual flop with ``expand``), optionally sorted by a column.

        Columns: flop, index, count, equity, frequency (the share of the
        equity weight), the hits and the textures.
        """
        weight = self._equity_weight()
        frequency = weight / weight.sum() if weight.sum() > 0 else weight
        out = []
        orbits = flop_orbits() if expand and self.symmetric else None
        for e, flop in enumerate(self.flops):
            row: dict[str, Any] = {"flop": flop, "index": int(self.index[e]), "count": int(self.count[e]), "equity": float(self.equity[e]),
                   "frequency": float(frequency[e])}
            row |= {name: float(share[e]) for name, share in self.hits.items()}
            row |= {key: values[e] for key, values in self.textures.items()}
            if orbits is None:
                out.append(row)
            else:
                for member, _ in orbits[int(self.index[e])]:
                    out.append(row | {"flop": format_cards(member), "count": 1, "frequency": row["frequency"] / row["count"]})
        return _sorted(out, sort, descending)

    def by_texture(self, key: str | tuple[str, ...] = "suits", sort: str | None = None, descending: bool = True) -> list[dict[str, Any]]:
        """Aggregate by one texture key or several (a tuple), weighted as the module docstring says.

        Each row: the texture values, flops (how many of the 22,100),
        frequency (share of the equity weight), equity and each hit rate.
        Without ``sort``, rows follow the textures' display order.
        """
        keys = (key,) if isinstance(key, str) else tuple(key)
        for k in keys:
            if k not in TEXTURES:
                raise MatchdbError(f"The texture key {k!r} is unknown; expected one of {', '.join(TEXTURES)}.")
        groups: dict[tuple[str, ...], list[int]] = {}
        for e in range(len(self.flops)):
            groups.setdefault(tuple(self.textures[k][e] for k in keys), []).append(e)
        weight = self._equity_weight()
        hit_weight = self._hit_weight()
        total = weight.sum()
        out = []
        for values in sorted(groups, key=lambda v: tuple(TEXTURES[k].index(x) for k, x in zip(keys, v, strict=True))):
            members = np.array(groups[values])
            w = weight[members]
            hw = hit_weight[members]
            row: dict[str, Any] = dict(zip(keys, values, strict=True))
            row["flops"] = int(self.count[members].sum())
            row["frequency"] = float(w.sum() / total) if total > 0 else 0.0
            live = w > 0
            row["equity"] = float((w[live] * self.equity[members][live]).sum() / w[live].sum()) if live.any() else float("nan")
            for name, share in self.hits.items():
                row[name] = float((hw * share[members]).sum() / hw.sum()) if hw.sum() > 0 else float("nan")
            out.append(row)
        return _sorted(out, sort, descending)

    def to_csv(self, path: str | Path | None = None, by: str | tuple[str, ...] | None = None,
               sort: str | None = None, descending: bool = True, expand: bool = False) -> str:
        """The entries (or, with ``by``, the texture aggregates) as CSV; written to ``path`` when given."""
        rows = self.rows(sort, descending, expand) if by is None else self.by_texture(by, sort, descending)
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        text = buffer.getvalue()
        if path is not None:
            from matchdb.outputs import save_text

            save_text(path, text)
        return text

    def to_json(self, path: str | os.PathLike[str] | None = None, expand: bool = False) -> str:
        """Summary, every entry and the aggregates by each texture key as JSON; written to ``path`` when given."""
        data = {
            "hero": self.hero,
            "villain": self.villain,
            "symmetric": self.symmetric,
            "flops_covered": self.total_flops,
            "equity": self.overall_equity(),
            "hits": self.overall_hits(),
            "seconds": self.seconds,
            "summary": self.summary(),
            "textures": {key: self.by_texture(key) for key in TEXTURES},
            "flops": self.rows(expand=expand),
        }
        text = json.dumps(plain(data))  # NaN (a flop where the hero range has no hand) becomes null
        if path is not None:
            from matchdb.outputs import save_text

            save_text(path, text)
        return text

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.to_json())
        return data

    def to_pandas(self, by: str | tuple[str, ...] | None = None, sort: str | None = None, descending: bool = True,
                  expand: bool = False) -> Any:
        """:meth:`rows` (one per flop entry) or, with ``by``, :meth:`by_texture` as a DataFrame (the ``notebook`` extra)."""
        rows = self.rows(sort, descending, expand) if by is None else self.by_texture(by, sort, descending)
        return require_pandas().DataFrame(rows)

    def to_text(self) -> str:
        lines = [self.summary(), "", f"{'suits':<10} {'pairing':<9} {'frequency':>9} {'equity':>8}"]
        lines.extend(f"{row['suits']:<10} {row['pairing']:<9} {row['frequency']:>9.4f} {row['equity']:>8.4f}"
                     for row in self.by_texture(("suits", "pairing"), sort="equity") if row["frequency"] > 0)
        return "\n".join(lines)

    def summary(self) -> str:
        """One line: the equity, how the flops were covered, the main hit rates and the best and worst suit-and-pairing texture."""
        hits = self.overall_hits()
        textures = [t for t in self.by_texture(("suits", "pairing"), sort="equity") if t["frequency"] > 0]
        shown = ", ".join(f"{name.replace('_', ' ')} {hits[name]:.3f}" for name in HITS)
        how = f"{len(self.flops):,} canonical tables x orbits" if self.symmetric else f"{len(self.flops):,} flops one by one"
        extremes = ""
        if textures:
            best, worst = textures[0], textures[-1]
            extremes = (f"; best {best['suits']} {best['pairing']} {best['equity']:.4f}, "
                        f"worst {worst['suits']} {worst['pairing']} {worst['equity']:.4f}")
        return (f"{self.hero} vs {self.villain}: equity {self.overall_equity():.4f} over {self.total_flops:,} flops "
                f"({how}){extremes}; {shown}; {self.seconds:.1f} s")


def _sorted(rows: list[dict[str, Any]], sort: str | None, descending: bool) -> list[dict[str, Any]]:
    if sort is None:
        return rows
    if rows and sort not in rows[0]:
        raise MatchdbError(f"Cannot sort by {sort!r}; expected one of {', '.join(rows[0])}.")
    nan_last = float("-inf") if descending else float("inf")
    return sorted(rows, key=lambda r: nan_last if r[sort] != r[sort] else r[sort], reverse=descending)
