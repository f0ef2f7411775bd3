"""The publish path: the workflow lints clean, and the buttons follow the repository URL (scripts/book_buttons.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import book_buttons  # noqa: E402

WORKFLOW = ROOT / ".github" / "workflows" / "publish.yml"
ACTIONLINT = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
needs_actionlint = pytest.mark.skipif(ACTIONLINT is None, reason="actionlint is not installed (the test extra)")


def _lint(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([ACTIONLINT, "-no-color", str(path)], capture_output=True, text=True, timeout=120)


@needs_actionlint
def test_the_publish_workflow_lints_clean():
    run = _lint(WORKFLOW)
    assert run.returncode == 0, run.stdout + run.stderr


@needs_actionlint
def test_actionlint_fails_on_a_planted_mistake(tmp_path):
    broken = WORKFLOW.read_text().replace("needs: build", "needs: no-such-job")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    planted = tmp_path / ".github" / "workflows" / "publish.yml"
    planted.write_text(broken)
    run = _lint(planted)
    assert run.returncode != 0 and "no-such-job" in run.stdout


def test_the_workflow_builds_with_the_readmes_command_and_deploys_the_site():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    build = workflow["jobs"]["build"]["steps"]
    assert any(step.get("run") == "make book" for step in build)
    assert "```bash\nmake book\n```" in (ROOT / "README.md").read_text()
    upload = next(step for step in build if str(step.get("uses", "")).startswith("actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "_build/html"
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build" and deploy["steps"][0]["uses"].startswith("actions/deploy-pages")
    env = next(step["env"] for step in build if step.get("run") == "make book")
    assert book_buttons.ENV_VAR in env


def test_a_local_build_has_no_buttons_and_a_configured_one_has_them():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["repository"]["url"] == ""  # the repository itself names no address
    assert book_buttons.repository_url(config["repository"]["url"], {}) == ""
    off = book_buttons.button_options("")
    assert not off["use_repository_button"] and not off["use_issues_button"] and off["launch_buttons"] == {}
    url = book_buttons.repository_url("", {book_buttons.ENV_VAR: "https://github.com/someone/prunelab"})
    on = book_buttons.button_options(url)
    assert on["repository_url"] == "https://github.com/someone/prunelab" and on["use_repository_button"]
    assert on["launch_buttons"]["binderhub_url"] == book_buttons.BINDER
    # the environment variable wins over the config key, so CI can point a clone at its own repository
    assert book_buttons.repository_url("https://github.com/a/b", {book_buttons.ENV_VAR: "https://github.com/c/d"}) \
        == "https://github.com/c/d"


@pytest.mark.parametrize("url", ["https://example.org/prunelab", "github.com/someone/prunelab",
                                 "https://github.com/someone"])
def test_a_url_the_buttons_cannot_use_is_refused_with_its_source(url):
    with pytest.raises(ValueError, match=r"PRUNELAB_REPOSITORY_URL .* is not https://github.com"):
        book_buttons.repository_url("", {book_buttons.ENV_VAR: url})
