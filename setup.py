"""Build hook: ship the frozen data of ``data/`` inside the wheel as ``prunelab/_data``.

The chapters read frozen networks, evidence and results through
``prunelab.catalogue.data_dir()``. In a checkout (and an editable install) that is the
repository's ``data/``; a wheel has no repository around it, so the files a reader
needs are copied into the package here. Everything else is in ``pyproject.toml``.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA = Path(__file__).resolve().parent / "data"
SHIPPED = (
    "networks/*.uai",
    "networks/*.json",
    "evidence/*.json",
    "benchmarks/*.md",  # the literature's benchmark families: attribution, licence, published answers, files
    "benchmarks/LICENSE.source",
    "benchmarks/answers.tsv",
    "benchmarks/*/*.net",
    "benchmarks/*/*.dne",
    "benchmarks/*/*.inst",
    "results/README.md",
    "results/*/*.parquet",  # every experiment's tables (not its runs/ working store)
    "results/*/*.json",
    "results/*/*.md",
)


class BuildPyWithData(build_py):
    """``build_py`` that also copies the frozen data (not in editable installs)."""

    def run(self):
        """Build as usual, then copy the frozen data into ``prunelab/_data``."""
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "prunelab" / "_data"
        for pattern in SHIPPED:
            for source in sorted(DATA.glob(pattern)):
                destination = target / source.relative_to(DATA)
                self.mkpath(str(destination.parent))
                self.copy_file(str(source), str(destination))


setup(cmdclass={"build_py": BuildPyWithData})
