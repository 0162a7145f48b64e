"""verify: what is present and intact, missing tables only when required, damage named, derived data checked."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from matchdb.cli.main import main
from matchdb.core.canonical import flop_index
from matchdb.db.verify import verify
from matchdb.storage import open_database
from matchdb.storage.derived import derived_member, save_derived, tables_fingerprint
from matchdb.storage.layout import shard_member


@pytest.fixture
def copy(small_store, tmp_path):
    target = tmp_path / "copy.zarr"
    shutil.copytree(small_store, target)
    return target


def test_a_partial_store_is_reported_as_present_and_intact(small_store, small_flops):
    report = verify(small_store, sample=5, seed=1)
    assert report.ok and report.problems == [] and report.bad == {} and report.sampled == 5
    assert report.present == report.tables_checked == 8 and report.missing == []
    assert report.lines()[0].endswith("8 of 1755 tables present, 8 intact, 0 derived files checked, 5 entries recomputed")
    required = verify(small_store, sample=0, required=small_flops + [5])
    assert not required.ok and required.missing == [5]
    complete = verify(small_store, sample=0, complete=True)
    assert not complete.ok and len(complete.missing) == 1755 - 8


def test_a_flipped_byte_is_named_and_the_cli_exits_1(copy):
    index = flop_index("2c7dJh")
    shard = copy / shard_member(index)
    data = bytearray(shard.read_bytes())
    data[len(data) // 3] ^= 0x40  # inside an inner chunk
    shard.write_bytes(bytes(data))
    broken = verify(copy, sample=0)
    assert list(broken.bad) == [index] and "SHA-256" in broken.bad[index]
    result = subprocess.run([sys.executable, "-m", "matchdb", "verify", str(copy), "--sample", "0"], capture_output=True, text=True)
    assert result.returncode == 1
    assert f"bad table {index}" in result.stdout and result.stdout.strip().endswith("FAILED")
    assert "matchdb: verifying: 8/8 tables in" in result.stderr  # progress is logged when not on a terminal


def test_derived_data_is_checked(copy):
    store = open_database(copy)
    built = store.built()
    save_derived(store, "demo", 1, tables_fingerprint(store, built), {"value": 0.5})
    assert verify(copy, sample=0).derived_checked == ["derived/demo.json"]
    path = copy / derived_member("demo")
    payload = json.loads(path.read_text())
    payload["content"]["value"] = 0.9520  # an edited figure: what happened to preflop.json in issue 16
    path.write_text(json.dumps(payload))
    report = verify(copy, sample=0)
    assert not report.ok and "altered or damaged" in report.problems[0]
    payload["content"]["value"] = 0.5
    payload["tables_sha256"] = "0" * 64
    path.write_text(json.dumps(payload))
    report = verify(copy, sample=0)
    assert not report.ok and "stale" in report.problems[0]


def test_a_shard_and_entry_copied_together_fail_verify(copy):
    """With the manifest entry copied too, verify used to say OK (issue 16)."""
    target, source = flop_index("2c7dJh"), flop_index("AhTcTh")
    for name in ("W/c/{}/0/0", "manifest/{:04d}.json"):
        shutil.copy(copy / name.format(source), copy / name.format(target))
    report = verify(copy, sample=0)
    assert list(report.bad) == [target] and "describes" in report.bad[target]


def test_verify_flops_and_bad_specs_from_the_cli(small_store, capsys):
    assert main(["verify", str(small_store), "--flops", "AhTcTh,0-2", "--sample", "3", "--quiet"]) == 0
    assert capsys.readouterr().out.strip().endswith("OK")
    assert main(["verify", str(small_store), "--flops", "0-300000000", "--quiet"]) == 2  # refused before expanding
    assert "names table 300000000; expected indices 0..1754" in capsys.readouterr().err
    assert main(["verify", str(small_store), "--complete", "--sample", "0", "--quiet"]) == 1
    assert "missing 1747 required tables" in capsys.readouterr().out


def test_recompute_catches_a_shard_forged_with_its_manifest_entry(copy, small_store, capsys):
    """A shard copied over another table's and its manifest entry edited to name the target: every checksum holds,
    answers change (0.580426 instead of 0.572571 on the full database), 'verify --sample 100' said OK (issue 20 item 14)."""
    import matchdb

    target, source = flop_index("2c7dJh"), flop_index("AhTcTh")
    shutil.copy(copy / f"W/c/{source}/0/0", copy / f"W/c/{target}/0/0")
    entry = json.loads((copy / f"manifest/{source:04d}.json").read_text())
    entry.update(index=target, flop=json.loads((copy / f"manifest/{target:04d}.json").read_text())["flop"])
    (copy / f"manifest/{target:04d}.json").write_text(json.dumps(entry))
    forged = matchdb.open(copy).equity("AhKh", "2c7dJh")
    assert forged != matchdb.open(small_store).equity("AhKh", "2c7dJh")  # the forgery changes answers
    assert verify(copy, sample=0).ok  # ... and every checksum holds (sampling finds it only by luck on 1,755 tables)
    report = verify(copy, sample=0, recompute=True, workers=2)
    assert not report.ok and list(report.bad) == [target] and report.recomputed == 8
    assert "differs from the recomputed one in" in report.bad[target]
    only = verify(copy, sample=0, recompute=True, required=[source, 0])  # a given set: only those are recomputed
    assert only.ok and only.recomputed == 2
    assert main(["verify", str(copy), "--recompute", "--flops", "2c7dJh", "--sample", "0", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert f"bad table {target}: the stored table differs from the recomputed one" in out and out.strip().endswith("FAILED")
    assert main(["verify", str(small_store), "--recompute", "--sample", "0", "--quiet"]) == 0
    assert "8 whole tables recomputed and compared" in capsys.readouterr().out
