"""experiments/FINDINGS.md is what the committed results give, byte for byte."""

import pytest

from attention_research import findings


def test_the_committed_findings_page_is_what_the_committed_results_give():
    page = findings.page(findings.collect())
    committed = (findings.ROOT / "experiments" / "FINDINGS.md").read_text()
    assert page == committed, ("experiments/FINDINGS.md is stale: rebuild it with "
                               "python -m attention_research.findings")


def test_a_finding_takes_only_the_known_verdicts():
    with pytest.raises(ValueError, match="expected one of"):
        findings.Finding("k", "t", "paper", "ours", "probably", "why")
    assert findings.pending("k", "t", "p", "5 seeds").verdict == "pending"


def test_separated_needs_the_right_direction_and_a_test():
    assert findings.separated([0.9, 0.91, 0.92], [0.5, 0.52, 0.51])[0]
    assert not findings.separated([0.5, 0.52, 0.51], [0.9, 0.91, 0.92])[0]
    assert findings.separated([0.5, 0.52, 0.51], [0.9, 0.91, 0.92], higher=False)[0]
    assert findings.separated([0.9], [0.5, 0.6]) == (False, "under 2 seeds on a side: no test")


def test_every_plot_the_findings_page_shows_is_committed():
    import re
    experiments = findings.ROOT / "experiments"
    page = (experiments / "FINDINGS.md").read_text()
    missing = [path for path in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page)
               if not (experiments / path).is_file()]
    assert not missing, f"the findings page shows plots that are not committed: {missing}"
