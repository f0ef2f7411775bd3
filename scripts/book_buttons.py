#!/usr/bin/env python3
"""Launch and repository buttons only where the book has a repository to point to.

A local build (``make book`` in a clone) has no address for its repository: its pages
show no repository, issues or launch button, so they never point at a made-up URL.
A published build knows where its repository lives, from one of (the first that is
set wins):

- the environment variable ``PRUNELAB_REPOSITORY_URL`` (the publish workflow,
  ``.github/workflows/publish.yml``, sets it to the repository it runs in);
- the key ``repository.url`` of ``_config.yml`` (empty in the repository).

With a URL the pages get a repository button and a Binder launch button that opens
the chapter in JupyterLab on mybinder.org. This module is a Sphinx extension listed
under ``sphinx.local_extensions`` in ``_config.yml``; it sets the theme's options
when the configuration is read.
"""

from __future__ import annotations

import os
import re

ENV_VAR = "PRUNELAB_REPOSITORY_URL"
BINDER = "https://mybinder.org"
_REPOSITORY = re.compile(r"^https://(github\.com|gitlab\.com)/[\w.-]+/[\w.-]+$")


def repository_url(config_url: str = "", environ=os.environ) -> str:
    """The book's repository URL: ``$PRUNELAB_REPOSITORY_URL``, else ``_config.yml``'s ``repository.url``, else "".

    Raises
    ------
    ValueError
        A URL that is not ``https://github.com/<owner>/<repo>`` or the GitLab
        equivalent (the launch buttons need one), naming where it came from.

    Examples
    --------
    >>> repository_url("", {})
    ''
    >>> repository_url("", {"PRUNELAB_REPOSITORY_URL": "https://github.com/someone/prunelab/"})
    'https://github.com/someone/prunelab'
    >>> repository_url("https://example.org/x", {})
    Traceback (most recent call last):
    ...
    ValueError: _config.yml repository.url 'https://example.org/x' is not https://github.com/<owner>/<repository> ...
    """
    from_env = environ.get(ENV_VAR, "").strip()
    url, source = (from_env, f"${ENV_VAR}") if from_env else (config_url.strip(), "_config.yml repository.url")
    url = url.rstrip("/")
    if url and not _REPOSITORY.match(url):
        raise ValueError(f"{source} {url!r} is not https://github.com/<owner>/<repository> "
                         "(or https://gitlab.com/...): the repository and launch buttons need one")
    return url


def button_options(url: str) -> dict:
    """The theme options for the buttons: on with a repository URL, every one off without.

    Examples
    --------
    >>> button_options("")["use_repository_button"], button_options("")["launch_buttons"]
    (False, {})
    >>> options = button_options("https://github.com/someone/prunelab")
    >>> options["use_repository_button"], options["launch_buttons"]["binderhub_url"]
    (True, 'https://mybinder.org')
    """
    if not url:
        return {"repository_url": "", "use_repository_button": False, "use_issues_button": False,
                "use_edit_page_button": False, "launch_buttons": {}}
    return {"repository_url": url, "repository_branch": "main", "path_to_docs": "",
            "use_repository_button": True, "use_issues_button": False, "use_edit_page_button": False,
            "launch_buttons": {"binderhub_url": BINDER, "notebook_interface": "jupyterlab"}}


def _configure(app, config):
    options = dict(config.html_theme_options or {})
    options.update(button_options(repository_url(options.get("repository_url", ""))))
    config.html_theme_options = options


def setup(app):
    app.connect("config-inited", _configure)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
