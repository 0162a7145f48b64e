"""Shipping: the packed file read in place, HDF5 export, and preflop tables checked against eval7 and published figures."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
import warnings
import zipfile

import h5py
import httpx
import numpy as np
import pytest

import matchdb
from matchdb.cli import main
from matchdb.errors import CorruptDatabaseError, DatabaseError, DatabaseNotFoundError, IncompleteDatabaseError
from matchdb.pack import SUMS_MEMBER, pack
from matchdb.preflop import CLASSES
from matchdb.store import ShardReader, directory_source
from matchdb.verify import verify
from tests.conftest import running_server

with warnings.catch_warnings():  # eval7 builds its range grammar with names pyparsing now deprecates
    warnings.simplefilter("ignore", DeprecationWarning)
    import eval7


@pytest.fixture(scope="module")
def packed(small_store, tmp_path_factory):
    out = tmp_path_factory.mktemp("packed") / "small.zip"
    report = pack(small_store, out)
    assert report.tables == 8 and out.exists()
    return out


def _member_start(path, name):
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
    with open(path, "rb") as handle:
        handle.seek(info.header_offset + 26)
        name_length, extra_length = np.frombuffer(handle.read(4), dtype="<u2")
    return info.header_offset + 30 + int(name_length) + int(extra_length), info.file_size


# -- the packed file ----------------------------------------------------------------


def test_packed_file_is_a_plain_checksummed_zip(small_store, packed):
    with zipfile.ZipFile(packed) as archive:
        assert archive.testzip() is None
        infos = archive.infolist()
        assert all(info.compress_type == zipfile.ZIP_STORED for info in infos)
        sums = dict(reversed(line.split("  ")) for line in archive.read(SUMS_MEMBER).decode().splitlines())
        for info in infos:
            if info.filename != SUMS_MEMBER:
                assert hashlib.sha256(archive.read(info)).hexdigest() == sums[info.filename]
                assert archive.read(info) == (small_store / info.filename).read_bytes()
    digest, name = (packed.parent / (packed.name + ".sha256")).read_text().split()
    assert name == packed.name and digest == hashlib.sha256(packed.read_bytes()).hexdigest()


def test_packing_is_reproducible(small_store, packed, tmp_path):
    again = pack(small_store, tmp_path / "again.zip")
    assert again.sha256 == hashlib.sha256(packed.read_bytes()).hexdigest()


def test_packed_file_answers_exactly_like_the_folder(small_store, packed, small_flops):
    folder, shipped = matchdb.open(small_store), matchdb.open(packed)
    assert shipped.info()["packed"] and shipped.info()["tables_built"] == 8
    for index in small_flops:
        assert np.array_equal(shipped.table(index), folder.table(index))
    for hole, board in [("AhKh", "2c7dJh"), ("AcAd", "AhTcTh5s"), ("AhTh", "AsTs9h2d3c")]:
        assert shipped.win_rate(hole, board, 4) == folder.win_rate(hole, board, 4)
        assert shipped.outcome(hole, board, "QQ+,AK") == folder.outcome(hole, board, "QQ+,AK")
    assert np.array_equal(shipped.equities("AsTs9h").values, folder.equities("AsTs9h").values, equal_nan=True)


def test_verify_a_packed_file(packed, capsys):
    assert verify(packed, sample=20, expected=[]).ok
    assert main(["verify", str(packed), "--flops", "AhTcTh,AsTs9h,2c7dJh,AhKhQh,7c7d2s,0-2", "--sample", "10"]) == 0
    assert capsys.readouterr().out.strip().endswith("OK")


def test_cli_and_service_read_the_packed_file(packed, tmp_path, capsys):
    assert main(["query", "AhKh", "2c7dJh", "--db", str(packed), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert round(answer["win_rate"], 6) == 0.580707 and round(answer["equity"], 6) == 0.572571
    with running_server(packed, tmp_path / "serve.log") as url:
        body = httpx.get(f"{url}/v1/equity", params={"hole": "AcAd", "board": "AhTcTh"}).json()
        assert round(body["equity"], 6) == 0.994682
        assert httpx.get(f"{url}/v1/info").json()["packed"] is True


def test_truncated_pack_is_refused(packed, tmp_path):
    for keep in (0.5, 0.999):
        cut = tmp_path / f"cut{keep}.zip"
        data = packed.read_bytes()
        cut.write_bytes(data[: int(len(data) * keep)])
        with pytest.raises(CorruptDatabaseError, match="is truncated or damaged"):
            matchdb.open(cut)
        report = verify(cut, sample=0)
        assert not report.ok and "truncated or damaged" in report.problems[0]


def test_altered_shard_byte_gives_an_error_never_a_wrong_answer(packed, tmp_path):
    from matchdb.canonical import flop_index

    index = flop_index("AhTcTh")
    altered = tmp_path / "altered.zip"
    shutil.copy(packed, altered)
    start, size = _member_start(altered, f"W/c/{index}/0/0")
    data = bytearray(altered.read_bytes())
    data[start + size // 3] ^= 0x10  # inside the first compressed chunks
    altered.write_bytes(bytes(data))
    db = matchdb.open(altered)  # the directory is intact, so it opens
    with pytest.raises(CorruptDatabaseError, match=f"table {index}"):
        db.equity("AcAd", "AhTcTh")
    report = verify(altered, sample=0, expected=[])
    assert not report.ok
    assert any("SHA-256" in p for p in report.problems)  # the .sha256 beside it and SHA256SUMS both disagree
    assert "SHA-256" in report.bad[index]


def test_altered_metadata_is_refused(packed, tmp_path):
    altered = tmp_path / "meta.zip"
    shutil.copy(packed, altered)
    start, size = _member_start(altered, "zarr.json")
    data = bytearray(altered.read_bytes())
    position = data.index(b'"format_version": 1', start, start + size) + len(b'"format_version": ')
    data[position] = ord("7")
    altered.write_bytes(bytes(data))
    with pytest.raises(CorruptDatabaseError, match="zarr.json"):
        matchdb.open(altered)


def test_pack_errors(small_store, tmp_path):
    with pytest.raises(DatabaseNotFoundError, match="No database at"):
        pack(tmp_path / "none.zarr", tmp_path / "x.zip")
    (tmp_path / "folder.zip").mkdir()
    with pytest.raises(DatabaseError, match="is a folder; expected a file name"):
        pack(small_store, tmp_path / "folder.zip")
    with pytest.raises(DatabaseNotFoundError, match="No database at"):
        matchdb.open(tmp_path / "none.zip")


# -- HDF5 -------------------------------------------------------------------------


def test_hdf5_export_reads_back_bit_identical(small_store, small_flops, tmp_path, capsys):
    out = tmp_path / "small.h5"
    assert main(["export", "--format", "hdf5", "--db", str(small_store), "--out", str(out), "--quiet"]) == 0
    assert "exported 8 tables" in capsys.readouterr().out
    reader = ShardReader(directory_source(small_store), "small")
    with h5py.File(out, "r") as h5:  # plain h5py, no plugin
        assert h5["W"].compression == "gzip" and h5["W"].chunks == (1, 168, 1176)
        assert h5.attrs["format_version"] == 1 and h5.attrs["sentinel"] == 65535
        assert sorted(np.flatnonzero(h5["built"][...])) == small_flops
        for index in small_flops:
            assert np.array_equal(h5["W"][index], reader.read_table(index))
        assert (h5["W"][3] == 65535).all()  # not built: the fill value
        from matchdb.canonical import CANONICAL_FLOPS
        from matchdb.pairs import COLLISION, PAIRS

        assert np.array_equal(h5["collision"][...], COLLISION)
        assert np.array_equal(h5["flops"][...], CANONICAL_FLOPS)
        assert np.array_equal(h5["pairs"][...], PAIRS)


# -- the full database: preflop tables and the shipped size ---------------------------


@pytest.fixture(scope="module")
def full_db(full_store):
    return matchdb.open(full_store)


@pytest.fixture(scope="module")
def preflop(full_db):
    return full_db.preflop()


def test_preflop_matches_published_exact_figures(preflop):
    """Exact heads-up equities against a random hand as published (PokerStove's full enumeration)."""
    published = {"AA": 0.8520, "KK": 0.8240, "AKs": 0.6704, "AKo": 0.6532, "72o": 0.3458, "32o": 0.3230}
    for name, value in published.items():
        assert preflop.equity[CLASSES.index(name)] == pytest.approx(value, abs=5e-5), name
    assert len(preflop.classes) == 169 and sorted(preflop.win_rate) == list(range(2, 11))


def test_preflop_equity_against_eval7_monte_carlo(preflop):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        everything = eval7.HandRange("22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32")
    for name, hand in (("AA", "AsAc"), ("T9s", "Th9h"), ("K4o", "Kd4s"), ("55", "5c5h")):
        estimate = eval7.py_hand_vs_range_monte_carlo([eval7.Card(hand[:2]), eval7.Card(hand[2:])], everything, [], 2_000_000)
        assert preflop.equity[CLASSES.index(name)] == pytest.approx(estimate, abs=0.0015), name  # about 4 sigma


def test_preflop_naive_win_rate_against_eval7_sampling(preflop):
    """Sample flop, turn and river; rank every other valid hand with eval7; average (1 - S) ** (n - 1)."""
    rng = np.random.default_rng(7)
    deck = [eval7.Card(matchdb.format_cards([c])) for c in range(52)]
    hole = list(matchdb.parse_cards("QdJd"))
    samples = []
    for _ in range(1200):
        board = [int(c) for c in rng.choice([c for c in range(52) if c not in hole], size=5, replace=False)]
        cards = [deck[c] for c in board]
        hero = eval7.evaluate([deck[c] for c in hole] + cards)
        rest = [c for c in range(52) if c not in board]
        others = [eval7.evaluate([deck[a], deck[b]] + cards) for i, a in enumerate(rest) for b in rest[i + 1 :] if {a, b} != set(hole)]
        others = np.array(others)
        samples.append(((others < hero).sum() + (others == hero).sum() / 2) / len(others))
    samples = np.array(samples)
    for players in (2, 6):
        values = samples ** (players - 1)
        sigma = values.std() / np.sqrt(len(values))
        assert preflop.win_rate[players][CLASSES.index("QJs")] == pytest.approx(values.mean(), abs=4 * sigma)


def test_preflop_is_cached_in_the_store_and_shipped(full_store, preflop, tmp_path, capsys):
    assert (full_store / "preflop.json").exists()
    again = matchdb.open(full_store).preflop(players=[3, 6])  # read from the cache
    assert np.array_equal(again.equity, preflop.equity) and sorted(again.win_rate) == [3, 6]
    assert np.array_equal(again.win_rate[6], preflop.win_rate[6])
    report = pack(full_store, tmp_path / "full.zip")
    assert report.bytes <= 250e6 and report.preflop_seconds == 0.0
    shipped = matchdb.open(tmp_path / "full.zip")
    assert np.array_equal(shipped.preflop().win_rate[6], preflop.win_rate[6])
    assert main(["preflop", "--db", str(tmp_path / "full.zip"), "--players", "2..3", "--out", str(tmp_path / "p.csv")]) == 0
    with open(tmp_path / "p.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 169 and rows[0]["hand"] == "AA" and list(rows[0]) == ["hand", "combos", "equity", "win_rate_2", "win_rate_3"]
    assert float(rows[0]["equity"]) == preflop.equity[0]
    assert main(["preflop", "--db", str(tmp_path / "full.zip"), "--players", "11"]) == 2
    assert "cover 2..10 players" in capsys.readouterr().err


def test_preflop_needs_every_table(small_store):
    with pytest.raises(IncompleteDatabaseError, match="Preflop tables need all 1755 tables"):
        matchdb.open(small_store).preflop()
