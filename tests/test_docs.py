"""The guide's links resolve (issue 38): every relative link in README.md, docs/*.md and
experiments/FINDINGS.md names a file or folder of the checkout, and every anchor names a
heading or an <a id> of the page it points into."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         ROOT / "experiments" / "FINDINGS.md",
         *sorted((ROOT / "experiments" / "results").glob("*/README.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _relative_links(page: Path):
    for target in LINK.findall(page.read_text()):
        if not re.match(r"^(https?:|mailto:|#)", target):
            yield target


def _anchors(page: Path) -> set:
    """The anchors a Markdown page has: its explicit <a id>s and GitHub's heading slugs
    (lowercased, punctuation dropped, spaces to hyphens)."""
    text = page.read_text()
    slugs = {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
             for heading in re.findall(r"^#+ (.+)$", text, flags=re.M)}
    return slugs | set(re.findall(r'<a id="([^"]+)"></a>', text))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    broken = []
    for target in _relative_links(page):
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(target)
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: links that resolve to nothing: {broken}"


def test_the_formulations_page_names_everything_registered():
    """docs/formulations.md names (as `code`) every registered score, alignment,
    normaliser and position scheme: a formulation added without its row fails here."""
    from attention_research import attention, models
    from attention_research.attention.normalizers import NORMALIZERS
    from attention_research.attention.registry import ALIGNMENTS, SCORES
    attention.registry  # noqa: B018 — importing the package registers every formulation
    text = (ROOT / "docs" / "formulations.md").read_text()
    named = set(re.findall(r"`([A-Za-z_0-9]+)`", text))
    missing = {kind: sorted(set(names) - named) for kind, names in (
        ("score", SCORES), ("alignment", ALIGNMENTS), ("normaliser", NORMALIZERS),
        ("position scheme", models.POSITIONS))}
    assert not any(missing.values()), (
        f"docs/formulations.md does not name: {missing}")


def test_no_table_row_holds_more_than_a_row_of_prose():
    """Issue 38: a cell of 2,088 characters was a section squeezed into a table; long
    cells are sections now, and stay so; so on the findings page, whose summary table
    links each row to its section."""
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
                 ROOT / "experiments" / "FINDINGS.md"]:
        long = [number for number, line in enumerate(page.read_text().splitlines(), 1)
                if line.startswith("|") and len(line) > 400]
        assert not long, f"{page.name}: table rows over 400 characters at lines {long}"


def test_the_readme_is_a_guide_of_at_most_300_lines():
    """Issue 38: the README guides; the detail lives in docs/, results in experiments/."""
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines: move detail to docs/"
    text = "\n".join(lines)
    assert "<!-- ci:run -->" in text and "<!-- ci:test -->" in text


def test_the_readmes_sweep_file_runs_as_written(tmp_path):
    """The README's "Compare two attentions" file, saved as written, is a sweep of the
    members and cohorts its --dry_run comment promises, and its baseline is one of them."""
    from attention_research.running import config_files, sweeps
    text = (ROOT / "README.md").read_text().split("## Compare two attentions", 1)[1]
    code = re.search(r"```python\n(.*?)```", text, flags=re.S)[1]
    promised = re.search(r"--dry_run +# (\d+) members, (\d+) cohorts", text)
    path = tmp_path / code.splitlines()[0].removeprefix("# experiments/")
    path.write_text(code)
    module = config_files.load(path)
    members = sweeps.expand(module.get_config(), module.get_sweep(), tmp_path / "run")
    assert (len(members), len(sweeps.cohorts(members))) == tuple(map(int, promised.groups()))
    assert module.get_config().baseline in {sweeps.baseline_name(m.overrides) for m in members
                                            if m.config.seed == 0}


def test_the_readmes_sweep_file_is_in_the_checkout():
    """The README's commands name experiments/dot_vs_additive.py: the file is there, and
    its code is the README's, line for line (issue 71: the command ran on nothing)."""
    text = (ROOT / "README.md").read_text().split("## Compare two attentions", 1)[1]
    code = re.search(r"```python\n(.*?)```", text, flags=re.S)[1]
    name = code.splitlines()[0].removeprefix("# ")
    saved = (ROOT / name).read_text()
    shown = [line for line in code.splitlines()[1:] if line.strip()]
    assert all(line in saved.splitlines() for line in shown), name
