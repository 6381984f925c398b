"""Which figures the repository's pages show. A record keeps the figures a page shows
(issue 70: records stay small); every other figure a run draws (the heat maps of each
member at each evaluation, each sweep report's plots) stays in its work directory.

A page is any Markdown file of the checkout (README.md, docs/, experiments/FINDINGS.md,
the records' READMEs and reports). It shows a figure when it names the figure's path:
as a Markdown image or link, or in its text, relative to the page, to the repository's
root or to experiments/ (how FINDINGS.md and the claims name them).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMAGE = re.compile(r"[\w./-]+\.(?:png|svg|jpg|gif)")
# Folders of a checkout that hold no page of this project's.
NOT_PAGES = {".git", ".venv", "runs", "node_modules", "__pycache__", ".pytest_cache"}


def pages(root: Path = ROOT) -> list[Path]:
    """Every Markdown file of the checkout at ``root``."""
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [s for s in subfolders if s not in NOT_PAGES and not s.startswith(".")]
        found += [Path(folder) / name for name in files if name.endswith(".md")]
    return sorted(found)


def shown_images(*folders: Path) -> set[Path]:
    """The absolute paths of the images some page names (whether or not the file
    exists): the pages of this checkout, and those under ``folders`` (a record being
    written outside it)."""
    shown = set()
    for page in {p for folder in (ROOT, *folders) for p in pages(Path(folder).resolve())}:
        for name in IMAGE.findall(page.read_text(errors="replace")):
            for base in (page.parent, ROOT, ROOT / "experiments"):
                shown.add(Path(os.path.normpath(base / name)))
    return shown
