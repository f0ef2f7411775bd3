"""The README as a reader meets it: two set-up commands, and a library example that runs and prints what it says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)


def _blocks(language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(README) if lang == language]


def test_the_repository_has_exactly_two_setup_commands():
    assert _blocks("bash") == ["make book\n", "make test\n"]
    languages = [lang for lang, _ in FENCE.findall(README)]
    assert languages[:3] == ["python", "bash", "bash"] and set(languages[3:]) <= {"shell"}  # then the cluster's
    assert README.index("## More than one machine") > README.index("make test")


def test_the_library_example_runs_and_prints_its_comment():
    (example,) = _blocks("python")
    assert len(example.strip().splitlines()) <= 10
    for name in ("sample(", ".marginals()", "exact_marginals(", "evidence"):
        assert name in example
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(example, "README.md", "exec"), {})  # noqa: S102  (the README's own code)
    said = example.strip().splitlines()[-1].removeprefix("# ")
    assert printed.getvalue().strip() == said
    numbers = [float(x) for x in re.findall(r"\d\.\d+", said)]
    assert np.allclose(numbers[:2], numbers[2:], atol=0.02)  # the estimate beside the exact answer


def test_the_readme_states_both_licences_and_the_citation_file():
    assert "MIT" in README and "CC-BY-4.0" in README and "CITATION.cff" in README
    assert (ROOT / "LICENSE").is_file() and (ROOT / "CITATION.cff").is_file() and (ROOT / "CHANGELOG.md").is_file()


def test_the_books_footer_states_the_text_licence():
    import yaml

    footer = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["html"]["extra_footer"]
    assert "CC BY 4.0" in footer and 'href="https://creativecommons.org/licenses/by/4.0/"' in footer
    assert "MIT" in footer
