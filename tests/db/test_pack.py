"""Packing: a plain, reproducible, checksummed zip of the store, read in place by the API, CLI and service."""

from __future__ import annotations

import hashlib
import json
import zipfile

import httpx
import pytest

import matchdb
from matchdb.cli.main import main
from matchdb.db.pack import pack
from matchdb.db.verify import verify
from matchdb.errors import DatabaseError, DatabaseNotFoundError
from matchdb.storage.packed import SUMS_MEMBER
from tests.helpers import running_server


@pytest.fixture(scope="module")
def packed(small_store, tmp_path_factory):
    out = tmp_path_factory.mktemp("packed") / "small.zip"
    report = pack(small_store, out)
    assert report.tables == 8 and out.exists()
    return out


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


def test_verify_a_packed_file(packed, capsys):
    assert verify(packed, sample=20).ok
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


def test_pack_errors(small_store, tmp_path):
    with pytest.raises(DatabaseNotFoundError, match="No database at"):
        pack(tmp_path / "none.zarr", tmp_path / "x.zip")
    (tmp_path / "folder.zip").mkdir()
    with pytest.raises(DatabaseError, match="is a folder; expected a file name"):
        pack(small_store, tmp_path / "folder.zip")
    with pytest.raises(DatabaseNotFoundError, match="No database at"):
        matchdb.open(tmp_path / "none.zip")


# -- HDF5 -------------------------------------------------------------------------


def test_the_checksum_beside_the_file_checks_with_sha256sum_as_the_summary_says(small_store, tmp_path):
    import shlex
    import subprocess

    report = pack(small_store, tmp_path / "checked.zip", preflop=False)
    command = report.summary().splitlines()[-1].removeprefix("check it with: ")
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd="/")
    assert done.returncode == 0 and done.stdout.strip() == "checked.zip: OK", (command, done.stderr)
    assert shlex.quote(str(tmp_path)) in command
