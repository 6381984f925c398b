"""The guide's links resolve (issue 38): every relative link in README.md, docs/*.md and
experiments/FINDINGS.md names a file or folder of the checkout, and every link to a
finding names an anchor FINDINGS.md has."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         ROOT / "experiments" / "FINDINGS.md"]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _relative_links(page: Path):
    for target in LINK.findall(page.read_text()):
        if not re.match(r"^(https?:|mailto:|#)", target):
            yield target


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    findings = (ROOT / "experiments" / "FINDINGS.md").read_text()
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', findings))
    broken = []
    for target in _relative_links(page):
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve()
        if not resolved.exists():
            broken.append(target)
        elif resolved.name == "FINDINGS.md" and anchor and anchor not in anchors:
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: links that resolve to nothing: {broken}"
