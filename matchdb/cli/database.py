"""Commands that make, check and ship the database: ``build``, ``init``, ``verify``, ``pack``, ``export``, ``info``, ``abstraction``."""

from __future__ import annotations

import argparse
import json

from matchdb.cli.common import DB_HELP, check_numbers, check_output, open_db
from matchdb.errors import MatchdbError

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``build``, ``verify``, ``init``, ``pack``, ``export``, ``info`` and ``abstraction`` to the subcommands ``sub``."""
    p = sub.add_parser("build", help="compute tables into a zarr store, then the preflop data derived from them (resumes a partial build)")
    p.add_argument("--out", help="store path (default: the default database, see --db)")
    p.add_argument("--flops", help="tables to build: indices, ranges like 0-39, flops like AhTcTh; default all")
    p.add_argument("--workers", type=int, help="local Dask worker processes (default: one per core)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler to use instead of a local cluster")
    p.add_argument("--serial", action="store_true", help="compute in this process, without Dask")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_build)

    p = sub.add_parser("verify", help="check metadata, checksums, derived data and sampled entries of a database")
    p.add_argument("path", nargs="?", help="database path (same as --db)")
    p.add_argument("--db", help=DB_HELP)
    p.add_argument("--sample", type=int, default=100, help="entries to recompute with the pure-Python twin")
    p.add_argument("--seed", type=int, help="seed for the sampled entries (default: a fresh one each run)")
    p.add_argument("--flops", help="tables that must be present (same forms as build --flops)")
    p.add_argument("--complete", action="store_true", help="fail unless all 1,755 tables are present")
    p.add_argument("--recompute", action="store_true", help="compute every table again (those of --flops when given) "
                   "and compare it entry by entry with the store: catches a shard forged with its manifest (about as "
                   "long as a build)")
    p.add_argument("--workers", type=int, help="threads that recompute (default: one per core)")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_verify)

    p = sub.add_parser("init", help="create an empty store (what a cluster build does before its array)")
    p.add_argument("--out", help="store path (default: the default database, see --db)")
    p.set_defaults(func=_init)

    p = sub.add_parser("pack", help="write the database as one checksummed file that opens directly")
    p.add_argument("--db", help="store folder (default: the default database, see --db of query)")
    p.add_argument("--out", help="file to write (default: the store's name with .zip)")
    p.add_argument("--no-preflop", action="store_true", help="do not compute the preflop table first")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_pack)

    p = sub.add_parser("export", help="export the database to another format (HDF5)")
    p.add_argument("--format", choices=["hdf5"], default="hdf5", help="output format (hdf5)")
    p.add_argument("--db", help=DB_HELP)
    p.add_argument("--out", required=True, help="file to write, like matchdb.h5")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_export)

    p = sub.add_parser("abstraction", help="EHS, EHS^2 and the river-equity histogram of every flop hand, as an array file")
    p.add_argument("--zarr", help="zarr folder to write")
    p.add_argument("--hdf5", help="HDF5 file to write")
    p.add_argument("--bins", type=int, default=50, help="histogram bins (default 50)")
    p.add_argument("--db", help=DB_HELP)
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_abstraction)

    p = sub.add_parser("info", help="format, provenance and completeness of a database")
    p.add_argument("--db", help=DB_HELP)
    p.set_defaults(func=_info)


def _build(args: argparse.Namespace) -> int:
    from matchdb.db.build import build

    report = build(
        root=args.out, flops=args.flops, workers=args.workers, scheduler=args.scheduler, serial=args.serial, quiet=args.quiet
    )
    print(report.summary())
    return 0


def _init(args: argparse.Namespace) -> int:
    from matchdb.storage import default_path
    from matchdb.storage.writer import create_store

    path = args.out or default_path()
    create_store(path)
    print(f"store ready at {path}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from matchdb.db.build import parse_flop_spec
    from matchdb.db.verify import verify
    from matchdb.storage import default_path

    check_numbers(args, (("sample", 0, 10_000_000), ("seed", 0, 2**63 - 1), ("workers", 1, 256)))
    path = args.path or args.db or default_path()
    required = parse_flop_spec(args.flops) if args.flops else ()
    report = verify(path, sample=args.sample, seed=args.seed, required=required, complete=args.complete,
                    show_progress=not args.quiet, recompute=args.recompute, workers=args.workers)
    print("\n".join(report.lines()))
    return 0 if report.ok else 1


def _pack(args: argparse.Namespace) -> int:
    from matchdb.db.pack import pack
    from matchdb.storage import default_path

    db = args.db or default_path()
    out = args.out or str(db).rstrip("/").removesuffix(".zarr") + ".zip"
    print(pack(db, out, show_progress=not args.quiet, preflop=not args.no_preflop).summary())
    return 0


def _export(args: argparse.Namespace) -> int:
    from matchdb.db.export import export_hdf5

    check_output(args, "out", (".h5", ".hdf5"))
    print(export_hdf5(open_db(args), args.out, show_progress=not args.quiet).summary())
    return 0


def _abstraction(args: argparse.Namespace) -> int:
    from matchdb.db.abstraction import build_dataset

    if not args.zarr and not args.hdf5:
        raise MatchdbError("'matchdb abstraction' writes a --zarr folder, an --hdf5 file or both; expected at least one.")
    check_output(args, "hdf5", (".h5", ".hdf5"))
    if args.zarr:
        from matchdb.storage import default_path
        from matchdb.storage.files import check_output_file

        check_output_file(args.zarr, ".zarr", reading=args.db or default_path())
    print(build_dataset(open_db(args), args.zarr, args.hdf5, bins=args.bins, quiet=args.quiet).summary())
    return 0


def _info(args: argparse.Namespace) -> int:
    print(json.dumps(open_db(args).info(), indent=2))
    return 0
