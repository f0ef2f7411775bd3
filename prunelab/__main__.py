"""The command line: ``python -m prunelab COMMAND`` (or the ``prunelab`` script).

Its help is written for a terminal, in plain words: :data:`DESCRIPTION` above the
commands, :data:`EXAMPLES` below them (``python -m prunelab --help``), and one line per
command and experiment. A killed ``run`` resumes where it stopped when started again
with the same arguments. Everything here calls
:mod:`prunelab.lab.experiments`; the command line adds no logic.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shlex
import sys
from pathlib import Path

__all__ = ["DESCRIPTION", "EXAMPLES", "EXPERIMENT_LINES", "main"]

DESCRIPTION = """\
Rerun the experiments of the paper "Prune Sampling" and of the book that reproduces it,
and print the paper's tables beside ours. Results go to a folder (data/results/<name> in a
clone, or --out); a command stopped with Ctrl-C, or killed, resumes there when it is run
again with the same arguments. Arguments are checked before anything is written."""

EXAMPLES = """\
examples:
  python -m prunelab run paper --profile smoke --jobs 2      the paper's sweep, small, on 2 cores
  python -m prunelab run paper --profile paper --jobs 2      the paper's sweep (data/results/paper)
  python -m prunelab run paper --profile smoke --cases 'grid-*' '*.prune'
                                                             only the cases these patterns match
  python -m prunelab tables --profile smoke                  Tables 2 and 3 beside the paper's
  python -m prunelab cases                                   every case id of the paper's sweep
  python -m prunelab run peers --profile quick               another experiment (run --help lists them)
  python -m prunelab run families --scheduler tcp://HOST:8786
                                                             an experiment's runs on a dask.distributed cluster
  python -m prunelab run large --freeze-evidence             the large networks' evidence files
  python -m prunelab --version                               the installed version"""


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


def _non_negative(text: str) -> int:
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _jobs(text: str) -> int:
    value = _integer(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be a positive number of workers or -1 (all cores), not 0")
    return value


def _folder(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a folder, got an empty string")
    if os.path.exists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text} is a file, not a folder")
    return text


def _user_errors() -> tuple:
    """Errors that a user's input or files cause: printed as one line, without a traceback."""
    from .lab.experiments.store import ResultsFileError, SweepMismatchError

    return ValueError, KeyError, OSError, MemoryError, ResultsFileError, SweepMismatchError


_COMMANDS = {
    "run": "run (or resume) an experiment's profile and write data/results/<experiment>[-<profile>]",
    "tables": "print Table 2 (alpha) and Table 3 (seconds) of the paper's sweep beside the paper's",
    "cases": "list the case ids of the paper's sweep",
}

EXPERIMENT_LINES = {
    "paper": "the paper's sweep: 11 benchmarks x Gibbs, Metropolis, prune sampling; Tables 2-3, Figure 5",
    "frontier": "past the junction tree: grids compiled into circuits, the samplers beside them",
    "large": "prune sampling on every network pgmpy ships, its peers at equal budgets, grids",
    "mcsat": "what SampleSAT costs MC-SAT: its bias, and the paper's indicators beside the other samplers",
    "peers": "prunelab beside pgmpy, pyAgrum and PyMC at equal wall-clock budgets",
    "families": "the literature's deterministic benchmarks answered exactly: each method, auto's choice, pyAgrum",
    "reach": "where only a sampler can go: every marginal where no exact method gives them all, against counts",
}
"""The one line ``run --help`` shows for each experiment of :data:`prunelab.lab.experiments.EXPERIMENTS`."""


def _version() -> str:
    from . import __version__

    return f"prunelab {__version__}"


def _new_parser() -> argparse.ArgumentParser:
    """The top-level parser, with or without the commands' own arguments: description, examples, ``--version``."""
    parser = argparse.ArgumentParser(prog="python -m prunelab", description=DESCRIPTION, epilog=EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=_version(), help="print the installed version")
    return parser


def _missing_extra() -> ModuleNotFoundError | None:
    """The import error of the ``experiments`` extra, or None when it is installed."""
    try:
        import prunelab.lab.experiments  # noqa: F401
        import prunelab.lab.experiments.large  # noqa: F401
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] == "prunelab":
            raise
        return exc
    return None


def _parser_without_extra(missing: ModuleNotFoundError) -> argparse.ArgumentParser:
    """The commands, each refusing with one line: the ``experiments`` extra is not installed."""
    note = f"needs the experiments extra ({missing.name} is not installed): pip install 'prunelab[experiments]'"
    parser = _new_parser()
    parser.epilog = f"{EXAMPLES}\n\nEvery command {note}."
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, text in _COMMANDS.items():
        sub.add_parser(name, help=f"{text} [needs the experiments extra]", description=note)
    parser.set_defaults(missing_extra=note)
    return parser


def _parser() -> argparse.ArgumentParser:
    missing = _missing_extra()
    if missing is not None:
        return _parser_without_extra(missing)
    from .lab.experiments import CASE_INITS, DEFAULT_ROOT_SEED, EXPERIMENTS, PROFILES

    parser = _new_parser()
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    experiments = "\n".join(f"  {name:<10}{EXPERIMENT_LINES[name]}" for name in sorted(EXPERIMENTS))
    profiles = "; ".join(f"{name}: {', '.join(sorted(EXPERIMENTS[name].profiles))}" for name in sorted(EXPERIMENTS))
    run = sub.add_parser("run", help=_COMMANDS["run"], formatter_class=argparse.RawDescriptionHelpFormatter,
                         description=f"{_COMMANDS['run']}.\n\nexperiments:\n{experiments}",
                         epilog="example:\n  python -m prunelab run paper --profile smoke --jobs 2")
    run.add_argument("experiment", choices=sorted(EXPERIMENTS), metavar="EXPERIMENT",
                     help=f"one of {', '.join(sorted(EXPERIMENTS))} (listed above)")
    run.add_argument("--profile", default="paper",
                     help=f"how much to run (default: paper); the profiles of each experiment: {profiles}")
    run.add_argument("--jobs", type=_jobs, default=1,
                     help="worker processes; -1 all cores; default 1 (timed budgets share no core)")
    run.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                     help="compute the runs on this dask.distributed scheduler's workers (--jobs is not used; give "
                          "each worker one thread for timed budgets); the results are written here")
    run.add_argument("--out", metavar="DIR", type=_folder,
                     help="results folder (default: data/results/<experiment>[-<profile>]; for an installed wheel "
                          "~/.local/share/prunelab/results/...)")
    run.add_argument("--kinds", nargs="+", metavar="KIND", help="only these kinds of run")
    run.add_argument("--seed", type=_non_negative, default=DEFAULT_ROOT_SEED,
                     help=f"root seed (default {DEFAULT_ROOT_SEED})")
    run.add_argument("--no-progress", action="store_true", help="no line per finished run")
    run.add_argument("--extend", action="store_true",
                     help="add the runs of a profile that only adds cases, samplers, networks, budgets or new settings "
                          "(reach's 600 s stage) to the one the folder was made with, keeping its runs")
    run.add_argument("--cases", nargs="+", metavar="PATTERN",
                     help="paper only: case ids or shell patterns, e.g. 'asia_ev0' '*.prune' (default: the "
                          "profile's cases)")
    run.add_argument("--init", choices=CASE_INITS,
                     help="paper only: override the initial states; 'fixed': all runs of a case start from one state")
    run.add_argument("--freeze-evidence", action="store_true",
                     help="large only: write the missing <network>-25.json evidence files (into --out if given, "
                          "default data/evidence) instead of running")

    tab = sub.add_parser("tables", help=_COMMANDS["tables"])
    tab.add_argument("--profile", default="paper", choices=sorted(PROFILES))
    tab.add_argument("--out", metavar="DIR", type=_folder,
                     help="results folder (default: the paper sweep's, data/results/paper[-<profile>])")
    tab.add_argument("--alpha", default="alpha", choices=["alpha", "alpha_free"],
                     help="our alpha: the paper's fixed delta = 0.9 (default) or delta fitted")

    sub.add_parser("cases", help=_COMMANDS["cases"])
    return parser


def main(argv=None) -> int:
    """Entry point of ``python -m prunelab`` and of the ``prunelab`` script.

    A user's error (a bad case pattern, a results folder that refuses the sweep, a
    missing file) is printed as one line on stderr, without a traceback; the
    return value is then 1. Warnings (e.g. ``--jobs`` lowered) are one line each.
    """
    import warnings

    formatted = warnings.formatwarning
    warnings.formatwarning = _one_line_warning
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader went away (``prunelab cases | head``): stop quietly, and keep the
        # interpreter from complaining when it flushes stdout at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except _UserError as exc:
        print(f"python -m prunelab: error: {exc}", file=sys.stderr)
        return 1
    finally:
        warnings.formatwarning = formatted


class _UserError(Exception):
    """An error caused by the user's input or files, printed as one line by :func:`main`."""


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    return f"python -m prunelab: {category.__name__}: {message}\n"


def _main(argv) -> int:
    parser = _parser()
    args, unknown = parser.parse_known_args(argv)
    if getattr(args, "missing_extra", None):  # the command's own arguments cannot be checked without it
        raise _UserError(f"{args.command} {args.missing_extra}")
    if unknown:
        parser.parse_args(argv)  # argparse's own message and exit status
    try:
        return _command(args, argv)
    except BrokenPipeError:
        raise  # the reader went away: main() ends quietly
    except _user_errors() as exc:
        text = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        raise _UserError(text) from exc


def _command(args, argv) -> int:
    from .lab import experiments

    if args.command == "cases":
        for case in experiments.CASES:
            print(case.id)
        sys.stdout.flush()
        return 0
    if args.command == "tables":
        return _tables(args)
    for option, owner in (("cases", "paper"), ("init", "paper"), ("freeze_evidence", "large")):
        if getattr(args, option) and args.experiment != owner:
            raise _UserError(f"--{option.replace('_', '-')} is an option of 'run {owner}', not of "
                             f"'run {args.experiment}'")
    if args.freeze_evidence:
        for path in experiments.large.freeze_evidence(folder=args.out):
            print(f"wrote {path}")
        return 0
    experiment = experiments.EXPERIMENTS[args.experiment]
    profile = experiments.framework.get_profile(experiment, args.profile)
    if args.cases or args.init:
        profile = dataclasses.replace(profile, init=args.init or profile.init)
        profile = profile.only(args.cases) if args.cases else profile
    words = _without_address(sys.argv[1:] if argv is None else argv)
    argv_text = "python -m prunelab " + " ".join(shlex.quote(a) for a in words)
    try:
        report = experiments.sweep(experiment, profile, out=args.out, n_jobs=args.jobs, root_seed=args.seed,
                                   kinds=args.kinds, progress=not args.no_progress, command=argv_text,
                                   extend=args.extend, scheduler=args.scheduler)
    except experiments.SweepInterrupted as stop:
        return _interrupted(stop)
    out = args.out or experiments.results_folder(experiment, profile)
    print(f"{args.experiment} {args.profile}: {report['n_done']} runs done, {report['n_skipped']} already on disk; "
          f"results in {out}; wall time {report['sweep_seconds']:.0f} s")
    sys.stdout.flush()
    return 0


def _tables(args) -> int:
    """Tables 2 and 3 of the paper sweep's results (``--out``, else the profile's folder), beside the paper's."""
    from .lab import experiments

    if args.out is None and args.profile == "paper":
        results = experiments.results(experiments.PAPER, "paper")  # a rerun's folder, else the frozen results
    else:
        folder = experiments.results_folder(experiments.PAPER, args.profile) if args.out is None else Path(args.out)
        if not (folder / "provenance.json").is_file():
            raise _UserError(f"no results in {folder}; run `python -m prunelab run paper --profile {args.profile}`"
                             + ("" if args.out is None else f" --out {shlex.quote(args.out)}"))
        results = experiments.load_folder(folder)
    prov = results.get("provenance", {})
    machine = prov.get("machine", {})
    made = prov.get("profile", {}).get("name", args.profile)  # the profile the results were made with
    print(
        f"profile {made}: {prov.get('profile', {}).get('n_runs', '?')} runs x "
        f"{prov.get('profile', {}).get('n_draws', '?')} draws per case; "
        f"{machine.get('cpu_model') or machine.get('processor', '?')}, {machine.get('cpu_count', '?')} CPUs"
    )
    print(experiments.format_paper_tables(results["summary"], alpha_column=args.alpha))
    sys.stdout.flush()
    return 0


def _without_address(argv) -> list[str]:
    """The arguments as the provenance records them: a scheduler's address (a machine's) as ``ADDRESS``.

    Examples
    --------
    >>> _without_address(["run", "families", "--scheduler", "tcp://10.0.0.5:8786", "--scheduler=tcp://h:1"])
    ['run', 'families', '--scheduler', 'ADDRESS', '--scheduler=ADDRESS']
    """
    words = [str(a) for a in argv]
    for i, word in enumerate(words):
        if word.startswith("--scheduler="):
            words[i] = "--scheduler=ADDRESS"
        elif i and words[i - 1] == "--scheduler":
            words[i] = "ADDRESS"
    return words


def _interrupted(stop) -> int:
    """Say how many runs a stopped sweep kept; the exit status of a process ended by SIGINT or SIGTERM."""
    how = "terminated" if stop.terminated else "interrupted"
    print(
        f"\n{how}: {stop.n_on_disk} runs kept in {stop.out} ({stop.n_written} written just now); "
        "run the same command again to resume",
        file=sys.stderr,
    )
    return 143 if stop.terminated else 130


if __name__ == "__main__":
    sys.exit(main())
