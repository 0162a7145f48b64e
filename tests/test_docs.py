"""The documentation site: it builds strictly, its reference covers every public module, and its transcripts are true.

The ```` ```python ```` examples of ``docs/`` and the README run as doctests
(``--doctest-glob`` in ``pyproject.toml``). Command-line transcripts, the
```` ```text ```` blocks of ``$ matchdb ...`` lines, are checked here: each
carries a marker in an HTML comment above it (see ``docs/testing.md``):

- ``<!-- transcript: small -->``: run on the small test store in the default
  run, each command's output compared with the page (``...`` stands for
  lines left out); ``curl`` lines go to a real ``matchdb serve``;
- ``<!-- transcript: full -->``: the same on the full database (slow run);
- ``<!-- transcript: recorded (reason) -->``: not run; the reason names what
  it would need and which test checks its claims instead.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import running_server

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md")) + [ROOT / "README.md"]

_BLOCK = re.compile(r"(?:<!-- transcript: (?P<kind>\w+)(?P<reason>[^>]*)-->\n)?```text\n(?P<body>.*?)```", re.DOTALL)
_DURATION = re.compile(r"\b\d+(?:\.\d+)? s\b")
_SHA256 = re.compile(r"\b[0-9a-f]{64}\b")
_MEGABYTES = re.compile(r"\b\d+(?:\.\d+)? MB\b")
_SERVER = "http://127.0.0.1:8000"


@dataclass
class Transcript:
    page: Path
    line: int
    kind: str | None
    reason: str
    steps: list[tuple[str, str]]  # (command, expected output)

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def transcripts() -> list[Transcript]:
    """Every ```text block of the docs and the README that holds a ``$`` command."""
    found = []
    for page in PAGES:
        text = page.read_text()
        for match in _BLOCK.finditer(text):
            body = match.group("body")
            if not any(line.startswith("$ ") for line in body.splitlines()):
                continue
            line = text.count("\n", 0, match.start("body"))
            reason = (match.group("reason") or "").strip()
            found.append(Transcript(page, line, match.group("kind"), reason, _steps(body)))
    return found


def _steps(body: str) -> list[tuple[str, str]]:
    steps: list[tuple[str, list[str]]] = []
    lines = body.splitlines()
    position = 0
    while position < len(lines):
        line = lines[position]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and position + 1 < len(lines):
                position += 1
                command = command[:-1].rstrip() + " " + lines[position].strip()
            steps.append((command, []))
        elif steps:
            steps[-1][1].append(line)
        position += 1
    return [(command, "\n".join(output).strip("\n")) for command, output in steps]


TRANSCRIPTS = transcripts()


def test_every_transcript_says_how_it_is_checked():
    unmarked = [t.name for t in TRANSCRIPTS if t.kind not in ("small", "full", "recorded")]
    assert not unmarked, f"transcripts without a marker (small, full or recorded): {unmarked}"
    unexplained = [t.name for t in TRANSCRIPTS if t.kind == "recorded" and not t.reason]
    assert not unexplained, f"recorded transcripts that do not say why they are not run: {unexplained}"
    assert any(t.kind == "small" for t in TRANSCRIPTS) and any(t.kind == "full" for t in TRANSCRIPTS)


def _shims(folder: Path) -> dict[str, str]:
    """``matchdb`` and ``python3`` on PATH as this interpreter, so a transcript runs this checkout."""
    folder.mkdir()
    for name, argv in (("matchdb", f'"{sys.executable}" -m matchdb'), ("python3", f'"{sys.executable}"')):
        shim = folder / name
        shim.write_text(f'#!/bin/sh\nexec {argv} "$@"\n')
        shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("MATCHDB_PATH", "XDG_DATA_HOME", "XDG_CACHE_HOME")}
    env["PATH"] = f"{folder}{os.pathsep}{env['PATH']}"
    return env


def _normalised(output: str) -> str:
    """Output without what differs between runs and builds: durations, SHA-256 digests, sizes in MB."""
    for pattern, mark in ((_DURATION, "<t> s"), (_SHA256, "<sha256>"), (_MEGABYTES, "<size> MB")):
        output = pattern.sub(mark, output)
    return output.rstrip() + "\n"


def _check(transcript: Transcript, env: dict[str, str], cwd: Path, db_path: Path, home: Path | None = None) -> None:
    """Run every command of ``transcript`` with bash and compare its output with the page's."""
    checker = doctest.OutputChecker()
    with ExitStack() as stack:
        server = None
        for command, want in transcript.steps:
            if command.startswith("matchdb serve"):  # started here, on a free port; its first line names a path
                server = stack.enter_context(running_server(db_path, cwd / "server.log"))
                continue
            if "curl" in command:
                if shutil.which("curl") is None:
                    pytest.skip("curl is not installed; the HTTP transcripts need it")
                if server is None:  # the page's server runs from an earlier block
                    server = stack.enter_context(running_server(db_path, cwd / "server.log"))
                command = command.replace(_SERVER, server)
            done = subprocess.run(
                ["bash", "-c", command], check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=300
            )
            got = done.stdout if done.returncode == 0 else done.stderr
            if home is not None:
                got = got.replace(str(home), "~")
            want, got = (_normalised(text) for text in (want, got))
            assert checker.check_output(want, got, doctest.ELLIPSIS), (
                f"{transcript.name}: $ {command}\n(exit status {done.returncode}, stderr {done.stderr[-2000:]!r})\n"
                + checker.output_difference(doctest.Example(command, want), got, doctest.ELLIPSIS)
            )


@pytest.mark.parametrize("transcript", [t for t in TRANSCRIPTS if t.kind == "small"], ids=lambda t: t.name)
def test_transcripts_on_the_small_store(transcript, small_store, tmp_path):
    env = _shims(tmp_path / "bin")
    env["MATCHDB_PATH"] = str(small_store)
    work = tmp_path / "work"
    work.mkdir()
    _check(transcript, env, work, small_store)


@pytest.fixture(scope="module")
def full_home(full_store, tmp_path_factory):
    """A home folder whose data folder holds the full database, as after ``matchdb build`` (its derived data included)."""
    home = tmp_path_factory.mktemp("home")
    data = home / ".local" / "share" / "matchdb"
    data.mkdir(parents=True)
    (data / "matchdb.zarr").symlink_to(full_store, target_is_directory=True)
    yield home
    shutil.rmtree(home, ignore_errors=True)  # a packed file and an HDF5 copy: 560 MB


@pytest.mark.slow
@pytest.mark.parametrize("transcript", [t for t in TRANSCRIPTS if t.kind == "full"], ids=lambda t: t.name)
def test_transcripts_on_the_full_database(transcript, full_home, full_store, tmp_path):
    env = _shims(tmp_path / "bin")
    env["HOME"] = str(full_home)
    work = tmp_path / "work"
    work.mkdir()
    try:
        _check(transcript, env, work, full_store, home=full_home)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _mkdocs_build(folder: Path, site: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of the configuration in ``folder`` into ``site``."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        check=False, cwd=folder, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # material's notice about MkDocs 2 is not a warning of ours
    )


def test_the_site_builds_strictly(tmp_path):
    """``mkdocs build --strict``, as CI runs it: every page, link, anchor and API reference resolves."""
    done = _mkdocs_build(ROOT, tmp_path / "site")
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "reference" / "core" / "index.html").is_file()


def test_a_broken_link_or_a_missing_reference_fails_the_build(tmp_path):
    """The strict build really is strict: the same configuration refuses a dead link and an unknown API name."""
    config = (ROOT / "mkdocs.yml").read_text()
    config = re.sub(r"\nnav:.*", "\n", config, flags=re.DOTALL).replace("paths: [.]", f"paths: [{ROOT}]")
    config = config.replace("docs/griffe_matchdb.py", str(DOCS / "griffe_matchdb.py"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(
        "# Broken\n\nSee [a page that is not there](missing.md) and [a function][matchdb.core.cards.no_such_name].\n"
    )
    (tmp_path / "mkdocs.yml").write_text(config)
    done = _mkdocs_build(tmp_path, tmp_path / "site")
    assert done.returncode != 0
    assert "missing.md" in done.stderr and "matchdb.core.cards.no_such_name" in done.stderr, done.stderr[-4000:]


def test_every_public_module_has_a_reference_page():
    """A module added to a package must be added to its package's page under docs/reference/ (``::: name``)."""
    listed = {
        line.removeprefix(":::").strip()
        for page in (DOCS / "reference").glob("*.md")
        for line in page.read_text().splitlines()
        if line.startswith(":::")
    }
    modules = set()
    for path in (ROOT / "matchdb").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(part.startswith("_") for part in parts):
            continue  # private modules and __main__
        modules.add(".".join(parts))
    assert sorted(modules - listed) == [], "public modules missing from docs/reference/"
    assert sorted(listed - modules) == [], "docs/reference/ names modules that do not exist"
    nav = (ROOT / "mkdocs.yml").read_text()
    assert all(f"reference/{page.name}" in nav for page in (DOCS / "reference").glob("*.md"))


def test_the_readme_is_short_and_opens_with_the_quick_start():
    """At most 150 lines; the two quick-start commands verbatim (CI runs the second), links into docs/ that exist."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 150
    quick_start = re.search(r"## Quick start\n\n```bash\n(.*?)```", text, re.DOTALL)
    assert quick_start and quick_start.group(1).splitlines() == [
        "python3 -m pip install -e '.[service]' && python3 -m matchdb build"
        " && python3 -m matchdb query AhKh 2c7dJh --players 3",
        "python3 -m pip install -e '.[test]' && python3 -m pytest",
    ]
    assert quick_start.group(1).splitlines()[1] in (ROOT / ".ci" / "run").read_text()
    links = re.findall(r"\]\((docs/[^)#]+)", text)
    assert links and [link for link in links if not (ROOT / link).exists()] == []


def _pages() -> dict[str, str]:
    """The README and every page of the manual, by their path from the root."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return {str(page.relative_to(ROOT)): page.read_text() for page in pages}


def test_the_site_and_the_service_have_their_own_ports_and_every_page_agrees():
    """Issue 29: ``mkdocs serve`` and ``matchdb serve`` both took 8000, so the second of them failed. The site is on
    ``mkdocs.yml``'s ``dev_addr``; every page that starts it names that address, and every other local address on
    the pages is the service's default port."""
    from matchdb.cli.main import parser

    site = re.search(r"^dev_addr: (\S+)$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE)
    assert site, "mkdocs.yml sets no dev_addr: mkdocs serve would take 8000, matchdb serve's port"
    serve_port = parser().parse_args(["serve"]).port
    site_port = int(site[1].rsplit(":", 1)[1])
    assert site_port != serve_port
    started = 0
    for name, text in _pages().items():
        for mention in re.finditer(r"mkdocs serve", text):
            nearby = text[max(0, mention.start() - 300):mention.end() + 300]
            addresses = re.findall(r"http://127\.0\.0\.1:(\d+)", nearby)
            assert addresses and set(addresses) == {str(site_port)}, (name, nearby)
            started += 1
        for address in re.finditer(r"http://127\.0\.0\.1:(\d+)", text):
            if int(address[1]) != site_port:
                assert int(address[1]) == serve_port, (name, address[0])
    assert started >= 2  # the README and Getting started


@pytest.mark.parametrize(("page", "extra", "command"), [
    ("docs/guide/play.md", "play", "matchdb play"),
    ("docs/guide/hands.md", "hands", "matchdb hands"),
    ("docs/guide/python.md", "notebook", "to_pandas()"),
    ("docs/guide/cli.md", "play", "`matchdb play"),
    ("docs/guide/cli.md", "hands", "`matchdb hands"),
])
def test_each_extra_is_named_where_its_commands_are_introduced(page, extra, command):
    """Issue 29: ``matchdb play``, ``matchdb hands`` and ``to_pandas()`` were introduced without the extra they need; now
    each guide names its install command near the first mention, and Getting started lists every extra with its own."""
    text = (ROOT / page).read_text()
    install = f"-e '.[{extra}]'"
    first = text.find(command)
    assert first >= 0 and install in text[max(0, first - 1500):], (page, extra)
    extras = re.search(r"^\[project\.optional-dependencies\]\n(.*?)\n\n", (ROOT / "pyproject.toml").read_text(),
                       re.MULTILINE | re.DOTALL)
    assert extras
    names = re.findall(r"^([a-z]+) = ", extras[1], re.MULTILINE)
    started = (ROOT / "docs" / "getting-started.md").read_text()
    assert {"play", "hands", "notebook"} <= set(names)
    for name in names:
        assert f"| `{name}` | `python3 -m pip install -e '.[{name}]'` |" in started, name
