"""experiments/FINDINGS.md, generated from the committed results alone.

Every experiment file that tests a paper's claim defines ``findings(results)``, which
reads its record (``experiments/results/NAME/``, a Path) and returns ``Finding``s: the
paper and its number, ours with its 95% interval, and a verdict its own code decides
(reproduced / not reproduced / inconclusive; pending while nothing is recorded). A
claim the docs make that no paper makes (e.g. "general fits slower than dot") is an
*observation*: a Finding with ``paper=None``, decided the same way by a named test, with
the verdicts holds / does not hold / inconclusive / pending. This module collects both
into one page, so no number on it is typed by hand:

    python -m experiments.lab.findings            # rebuild experiments/FINDINGS.md
    python -m experiments.lab.findings --redraw   # first redraw every recorded report

Every "reproduced" and "holds" verdict is replicated on fresh seeds (issue 35), and a "not
reproduced" or "does not hold" one where the experiment's test separated the claim the
other way (``SEPARATES_BOTH_WAYS``, a tuple of their keys): an
experiment lists the findings its replication sweep decides (``REPLICATED``: train it
with ``python launch.py --config=experiments/NAME.py:replicate``, seeds
``REPLICATION_SEEDS``, recorded in ``results/NAME_replication``) and the ones too costly
to replicate here (``NOT_REPLICATED``: {key: why}). The same ``findings`` code decides
the replicate; a verdict it does not repeat becomes inconclusive, and the page says so.
Where an audit found that a registered rule does not measure what it names, the
experiment lists the finding in ``DECIDED_BY_FRESH_SEEDS`` ({key: why}) and its code
decides the replication record by a revised rule, written before those seeds ran: their
verdict is the finding's, whatever the first seeds gave. A finding that reads other
experiments' records has its replication in theirs: the experiment names them
(``REPLICATION_READS``: {record: the launch argument that trains its replication}),
and each NAME_replication it reads must repeat NAME's config but for the seed. One
finding of an experiment may read other records than the rest: ``REPLICATION_SOURCES``
({key: {record: argument}}; luong_table4's alignment row reads compare_attention's).
An experiment whose replication trains its own fresh seeds names them
(``REPLICATION_SEEDS`` in its claims module, e.g. hard_vs_soft_multi30k's 446-451); one
whose settings take different numbers of seeds names them for the page itself
(``replication_seed_words(REPLICATION_SEEDS)``: (words, how many members)).
A replication may add outputs the first run lacks for a revised rule to read (its
fields, ``REPLICATION_ADDS``: {field: the value it must hold}, e.g. translations at a
tuned length penalty); every other field must match.
An experiment that decides an earlier one's rows again, in a regime a referee asked
for, names them (``SUPERSEDES``: {earlier experiment: keys}) and says when its record
holds enough to replace them (``supersedes(its record)``); until then the earlier rows
stand.

The page depends on nothing but the files under experiments/results/, so rebuilding it
from a clean clone gives the same bytes.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path


from attention_research.reports import stats
from attention_research.reports.tables import markdown_table
from attention_research.running.workdir import write_atomically

ROOT = Path(__file__).resolve().parents[2]
VERDICTS = ("reproduced", "not reproduced", "inconclusive", "pending")
OBSERVATION_VERDICTS = ("holds", "does not hold", "inconclusive", "pending")
# A check: a paper's arithmetic computed as the paper states it, whose outcome follows by
# construction (Vaswani et al.'s footnote 4 on unit-variance draws). It verifies the
# code and the identity, not a finding about trained models, so it is no reproduction:
# it is counted apart. A check on trained models (local-m's window) is replicated on
# fresh seeds like a finding; one on random draws is not (a second draw repeats it).
CHECK_VERDICTS = ("verified", "not verified", "inconclusive", "pending")
COMMAND = "python -m experiments.lab.findings"
REPLICATION_SEEDS = (100, 101, 102)  # never used by a first run
REPLICABLE = ("reproduced", "holds", "verified")  # the verdicts a replication must repeat
# Each separating verdict and the one that contradicts it.
OPPOSITE = {"reproduced": "not reproduced", "holds": "does not hold",
            "not reproduced": "reproduced", "does not hold": "holds",
            "verified": "not verified", "not verified": "verified"}


# A contrary verdict is replicated too where the experiment's test reached it by
# separating the claim the other way (``SEPARATES_BOTH_WAYS``: those findings' keys): a
# claim a test found false is a positive finding as well. Not every rule's contrary
# verdict is a test's (some name the highest mean), so each experiment says which are.
CONTRARY = tuple(OPPOSITE[verdict] for verdict in REPLICABLE)


def as_check(verdict: str) -> str:
    """A rule's verdict, a finding's or an observation's, in a check's words
    (CHECK_VERDICTS): what it verifies is read 'verified', what it refutes 'not
    verified'; 'inconclusive' and 'pending' stay."""
    return {"reproduced": "verified", "holds": "verified", "not reproduced": "not verified",
            "does not hold": "not verified"}.get(verdict, verdict)


@dataclass(frozen=True)
class Finding:
    key: str  # a short anchor, e.g. "score-std-grows-as-root-d": README links point here
    title: str
    paper: str | None  # who claims what, with the paper's own number; None: our observation
    ours: str  # our number with its interval, or what is missing
    verdict: str  # one of VERDICTS (OBSERVATION_VERDICTS for an observation)
    why: str  # the test behind the verdict
    plot: str | None = None  # relative to experiments/
    replication: str | None = None  # what fresh seeds gave (replicable verdicts only)
    replicated: str = ""  # the summary table's word for it: yes / no / pending / …
    # The records that hold its fresh seeds (NAME_replication folders), for the page's link.
    replication_records: tuple = ()
    # Other experiments' records it reads (folders under results/), for the page's link.
    records: tuple = ()
    # The summary table's power cell (rule.power_words): the smallest effect the design
    # detects at 80% power and, for an inconclusive row, the seeds that would decide it.
    power: str = ""
    # For a check (CHECK_VERDICTS): why its outcome follows by construction; "" for a
    # finding about trained models.
    construction: str = ""
    # The key of the row whose contrast this one reads again (the same arms, the same
    # effect): shown, but not counted twice in the page's tally.
    repeats: str = ""

    def __post_init__(self):
        allowed = self.verdicts
        if self.verdict not in allowed:
            raise ValueError(f"verdict {self.verdict!r}: expected one of {allowed}")

    @property
    def observation(self) -> bool:
        return self.paper is None

    @property
    def check(self) -> bool:
        return bool(self.construction)

    @property
    def verdicts(self) -> tuple[str, ...]:
        if self.check:
            return CHECK_VERDICTS
        return OBSERVATION_VERDICTS if self.observation else VERDICTS


def pending(key: str, title: str, paper: str | None, what: str) -> Finding:
    """A finding whose experiment has no committed result yet."""
    return Finding(key, title, paper, f"no committed result yet ({what})", "pending",
                   "nothing to test until the sweep is recorded")


def read_table(path) -> list[dict]:
    """A CSV as a list of rows, numbers as floats, empty cells as None."""
    def value(text):
        if text == "":
            return None
        try:
            return float(text)
        except ValueError:
            return text
    with open(path, newline="") as table:
        return [{k: value(v) for k, v in row.items()} for row in csv.DictReader(table)]


def column(rows, key, **where) -> list:
    """The ``key`` values of the rows matching every ``where`` field."""
    return [r.get(key) for r in rows if all(r.get(k) == v for k, v in where.items())]


def report_rows(results) -> list[dict]:
    """The rows of a record's summary.csv, and of its ``--only`` reports
    (``only/*/summary.csv``) for members the sweep's own report does not hold yet: a
    finding that needs a few settings of a big sweep is decided once those settings are
    recorded, not when the last member of the sweep is. None while nothing is reported."""
    results = Path(results)
    whole = results / "summary.csv"
    rows = read_table(whole) if whole.is_file() else []
    seen = {row.get("member") for row in rows}
    for path in sorted(results.glob("only/*/summary.csv")):
        for row in read_table(path):
            if row["member"] not in seen:
                seen.add(row["member"])
                rows.append(row)
    return rows


def finished_members(rows, settings, seeds: int) -> int:
    """How many of the ``seeds`` members of each setting the report holds finished,
    summed over ``settings``: a finding waits until it is every one."""
    return sum(min(len(column(rows, "seed", setting=s, status="finished")), seeds)
               for s in settings)


def progress(results, rows, settings, seeds: int) -> str:
    """How far a pending finding's settings are: the members the report holds, and the
    members recorded one by one beyond it (a sweep recorded before it finished has no
    report yet, so counting the report alone would say none)."""
    total, reported = len(settings) * seeds, finished_members(rows, settings, seeds)
    recorded = sum(min(len(member_files(results, s, "summary.json")), seeds)
                   for s in settings)
    text = f"{reported} of {total} members in the report"
    if recorded > reported:
        text += (f"; {recorded} of {total} recorded one by one, reported when the sweep "
                 "is finished")
    return text


def member_files(results, setting: str, name: str) -> list[Path]:
    """Each recorded member's ``name`` file of ``setting``, in order of seed (the
    setting "base", a sweep's member with no overrides, is the members "seed-N")."""
    prefix = "" if setting == "base" else f"{setting}_"
    return sorted((Path(results) / "members").glob(f"{prefix}seed-*/{name}"),
                  key=lambda p: member_seed(p.parent))


def member_seed(member: Path) -> int:
    """A member folder's seed, from its name ('..._seed-101')."""
    return int(member.name.rsplit("-", 1)[1])


def finished_members_of(results, setting: str, seeds=None) -> list[Path]:
    """The folder of each finished recorded member of ``setting`` (of ``seeds``, if
    given: a run's own seeds, not another run's in the same folder), in order of seed."""
    return [path.parent for path, summary in _summaries(results, setting, seeds)
            if summary.get("status") == "finished"]


def own_seeds(results, experiment) -> list[int]:
    """The seeds of ``experiment`` (its file's module) that the record ``results`` holds:
    its REPLICATION_SEEDS in a NAME_replication record, else its SEEDS. Read from the
    file, not from the claims module, whose SEEDS the page swaps while it reads a
    replication (``replicate_findings``)."""
    replicating = Path(results).name.endswith("_replication")
    return list(experiment.REPLICATION_SEEDS if replicating else experiment.SEEDS)


def ended_members(results, setting: str, seeds) -> list[tuple[Path, dict]]:
    """(folder, summary.json) of each recorded member of ``setting`` of ``seeds`` that
    finished or failed, in order of seed."""
    return [(path.parent, summary) for path, summary in _summaries(results, setting, seeds)
            if summary.get("status") in ("finished", "failed")]


def _summaries(results, setting: str, seeds=None) -> list[tuple[Path, dict]]:
    return [(path, json.loads(path.read_text()))
            for path in member_files(results, setting, "summary.json")
            if seeds is None or member_seed(path.parent) in seeds]


def member_values(results, setting: str, key: str, step: int) -> list:
    """``key`` at ``step`` in each recorded member of ``setting`` (its metrics.jsonl),
    in order of seed: for what summary.csv does not hold, e.g. a metric at step 0."""
    values = []
    for path in member_files(results, setting, "metrics.jsonl"):
        found = [r[key] for r in map(json.loads, path.read_text().splitlines())
                 if r.get("step") == step and r.get(key) is not None]
        values.append(found[0] if found else None)
    return values


def member_finals(results, setting: str, seeds=None) -> list[dict]:
    """The final results (summary.json's ``members[0]``) of each finished recorded member
    of ``setting`` (of ``seeds``, if given), in order of seed: e.g. its
    ``seq_acc_by_length``."""
    return [summary["members"][0] for _, summary in _summaries(results, setting, seeds)
            if summary.get("status") == "finished"]


def mean_accuracy(by_length: dict, first: int, last: int) -> float:
    """The mean of {length: accuracy} (JSON keys are strings) over first … last."""
    values = [a for n, a in by_length.items() if first <= int(n) <= last]
    return sum(values) / len(values)


def separated(a, b, higher: bool = True, rule: stats.Rule = stats.ACCURACY
              ) -> tuple[bool, str]:
    """Whether a's mean is above b's (below if not ``higher``) by Welch's t at 5% and by
    at least ``rule``'s minimum effect, and not with both at its floor (stats.contrast);
    and the comparison in words: the difference with its 95% interval, then the test."""
    found = stats.contrast(a, b, rule)
    return (found.above if higher else found.below), found.words()


def one_rule_reading(comparisons, metric: stats.Rule = stats.ACCURACY,
                     verdict: str | None = None, results=None, also=()) -> tuple:
    """The lab's one rule on a row decided by its own registered test (``separated`` or
    ``separated_holm``) on the same (a, b, higher) comparisons: each d = a − b beyond the
    metric's minimum effect on the ``higher`` side, every one required (rule.all_of).
    Returns (its words for the row, naming ``verdict``, the registered one, where they
    differ; the power cell: rule.power_words over these and ``also``, more
    rule.Decisions the row needs, with what deciding it costs given ``results``, its
    record). The page's header promises both on every row that keeps its own rule (a
    fresh referee found rows without the reading; a tenth, decided rows without power)."""
    from experiments.lab import rule
    decisions = _one_rule_decisions(comparisons, metric)
    again = {rule.REPRODUCED: "holds", rule.NOT_REPRODUCED: "does not hold",
             rule.INCONCLUSIVE: "inconclusive"}[rule.all_of(decisions)]
    words = (f". The lab's one decision rule on the same contrasts (each 95% interval beyond "
             f"{metric.min_effect:g} on its side, all of them) gives {again}"
             + ("" if verdict in (None, again) else ", not the registered verdict"))
    power = rule.power_words(decisions + list(also), rule.member_seconds(Path(results))
                             if results is not None else None)
    return words, power


def _one_rule_decisions(comparisons, metric: stats.Rule) -> list:
    """The lab's one rule on each (a, b, higher) comparison: d = a − b beyond the
    metric's minimum effect on the ``higher`` side (rule.Decision each)."""
    from experiments.lab import rule
    return [rule.decide(a, b, rule.Claim(metric.min_effect if higher else -metric.min_effect,
                                         rule.ABOVE if higher else rule.BELOW), metric)
            for a, b, higher in comparisons]


def separated_holm(comparisons, rule: stats.Rule = stats.ACCURACY
                   ) -> list[tuple[bool, str]]:
    """``separated`` for several comparisons at once, Holm-corrected over them:
    ``comparisons`` is a list of (a, b, higher); each answer says whether a's mean is
    on the ``higher`` side of b's with a Holm-adjusted Welch p below 5%, by at least the
    rule's minimum effect and not at its floor."""
    found = stats.contrasts([(a, b) for a, b, _ in comparisons], rule)
    return [((c.above if higher else c.below), c.words(corrected=True))
            for c, (_, _, higher) in zip(found, comparisons)]


def experiment_modules():
    """(name, module) of every experiment whose claims are decided here, by name: its
    claims module experiments/lab/claims/NAME.py beside experiments/NAME.py, which reads
    the experiment file and names what it needs of it (its settings, ``SEEDS``,
    ``REPLICATED``)."""
    import importlib
    return [(path.stem, importlib.import_module(f"experiments.lab.claims.{path.stem}"))
            for path in sorted((ROOT / "experiments" / "lab" / "claims").glob("*.py"))
            if path.stem != "__init__" and (ROOT / "experiments" / path.name).is_file()]


def superseded(results: Path) -> dict[str, frozenset[str]]:
    """{experiment: the keys of its rows that a later experiment's record decides now}.
    A claims module that decides an earlier experiment's rows again names them
    (``SUPERSEDES``: {experiment: keys}) and says when its record holds enough to
    (``supersedes(its record)``); until then the earlier rows stand."""
    dropped: dict[str, frozenset[str]] = {}
    for name, module in experiment_modules():
        for earlier, keys in getattr(module, "SUPERSEDES", {}).items():
            if module.supersedes(Path(results) / name):
                dropped[earlier] = dropped.get(earlier, frozenset()) | frozenset(keys)
    return dropped


def collect() -> list[tuple[str, Finding]]:
    results = ROOT / "experiments" / "results"
    dropped = superseded(results)
    found = []
    for name, module in experiment_modules():
        own = [_written_after(module, f, name) for f in module.findings(results / name)
               if f.key not in dropped.get(name, ())]
        found += [(name, f) for f in with_replication(module, own,
                                                      results / f"{name}_replication",
                                                      results / name)]
    return found


def _written_after(module, finding: Finding, record: str) -> Finding:
    """The row, saying so where its rule was written after its first seeds were recorded
    (the claims module's ``RULES_AFTER_FIRST_RUN``: {key: when}, from the record's
    Decision log). A fresh referee (issue 73) found observations whose rules came after
    their records without a word of it on the page."""
    when = getattr(module, "RULES_AFTER_FIRST_RUN", {}).get(finding.key)
    if not when:
        return finding
    confirmed_by = ("it is not replicated (the Replication line says why), so the row is "
                    "exploratory" if finding.key in getattr(module, "NOT_REPLICATED", {})
                    else "the first run is exploratory and the fresh seeds on the "
                    "Replication line are its confirmatory test")
    return dataclasses.replace(finding, why=(
        f"{finding.why}. Its rule was written after its first seeds were recorded ({when}; "
        f"results/{record}/README.md, Decision log): {confirmed_by}"))


def config_differences(original: Path, replication: Path, adds=()) -> list[str]:
    """The replicated settings whose config differs from the first run's in anything but
    the seed (a replication must rerun the same experiment). A field added after the
    first run was written counts as the value that run had (``config_changes.ADDED_FIELDS``),
    and the fields that set only how much is computed at once are not compared, nor
    those of ``adds`` ({field: the value the replication must hold}): fields the
    experiment lets its replication differ in because they only add outputs beside the
    ones the first run's rule read (``REPLICATION_ADDS``); at another value they differ."""
    from attention_research.reports.setting_names import setting_name
    from attention_research.running.config_changes import ADDED_FIELDS, RESOURCE_FIELDS, flatten

    def compared(path, replicating=False):
        config = {**ADDED_FIELDS, **flatten(json.loads(path.read_text()))}
        added = {k for k in adds if not replicating or _same(config.get(k), adds[k])}
        return {k: v for k, v in config.items()
                if k not in RESOURCE_FIELDS and k not in added and k not in ("seed", "name")}

    first = {}  # each setting's first-run config, read once
    for path in sorted(Path(original).glob("members/*/config.json")):
        setting = setting_name(path.parent.name)
        if setting not in first:
            first[setting] = compared(path)
    differing = []
    for path in sorted(Path(replication).glob("members/*/config.json")):
        setting = setting_name(path.parent.name)
        if setting in first and setting not in differing and first[setting] != compared(
                path, replicating=True):
            differing.append(setting)
    return differing


def _same(saved, required) -> bool:
    """A config.json value (JSON: tuples are lists) equals a config's."""
    normal = lambda v: list(v) if isinstance(v, (list, tuple)) else v  # noqa: E731
    return normal(saved) == normal(required)


def replicate_findings(module, folder: Path) -> dict[str, Finding]:
    """The module's findings decided on its replication record alone, with its seeds
    read as ``REPLICATION_SEEDS`` (each experiment's code counts ``SEEDS``)."""
    if not folder.is_dir() and not (getattr(module, "REPLICATION_READS", None)
                                    or getattr(module, "REPLICATION_SOURCES", None)):
        return {}
    saved = module.SEEDS
    module.SEEDS = list(REPLICATION_SEEDS)
    try:
        return {f.key: f for f in module.findings(folder)}
    finally:
        module.SEEDS = saved


def with_replication(module, own: list[Finding], folder: Path,
                     original: Path | None = None) -> list[Finding]:
    """``own`` with what the replication gave each REPLICABLE verdict: repeated
    (replicated), not repeated (the verdict becomes inconclusive), pending, or not
    replicated with the experiment's stated reason. Never silent. A replication whose
    settings differ from the first run's in anything but the seed counts as none."""
    covered = getattr(module, "REPLICATED", ())
    costly = getattr(module, "NOT_REPLICATED", {})
    revised = getattr(module, "DECIDED_BY_FRESH_SEEDS", {})
    adds = getattr(module, "REPLICATION_ADDS", {})
    own_differing = (config_differences(original, folder, adds)
                     if original and folder.is_dir() else [])

    def sources(key) -> dict:
        """{record: the launch argument of its replication} whose NAME_replication holds
        the finding's fresh seeds; {} for the experiment's own record."""
        return getattr(module, "REPLICATION_SOURCES", {}).get(
            key, getattr(module, "REPLICATION_READS", {}))

    def differing_for(key) -> list:
        if not sources(key):
            return own_differing
        return [f"{record} {s}" for record in sources(key)
                for s in config_differences(folder.parent / record,
                                            folder.parent / f"{record}_replication")
                if (folder.parent / f"{record}_replication").is_dir()]

    def command_for(key) -> str:
        if sources(key):
            return " and ".join(f"`python launch.py --config=experiments/{argument}`"
                                for argument in sources(key).values())
        # An experiment whose replication takes more than one launch names them
        # (REPLICATION_ARGUMENTS; hard_vs_soft_multi30k's amendment (g)).
        name = folder.name.removesuffix("_replication")
        return " and ".join(f"`python launch.py --config=experiments/{name}.py:{argument}`"
                            for argument in getattr(module, "REPLICATION_ARGUMENTS",
                                                    ("replicate",)))

    saved_seeds = list(module.SEEDS)  # the first run's (replicate_findings swaps them)
    fresh = replicate_findings(module, folder) if covered else {}
    own_fresh = getattr(module, "REPLICATION_SEEDS", REPLICATION_SEEDS)  # its own, if named
    if set(own_fresh) & set(saved_seeds):  # a replication reuses no seed of its first run
        raise ValueError(f"{module.__name__}: its replication seeds {sorted(own_fresh)} share "
                         f"{sorted(set(own_fresh) & set(saved_seeds))} with its first run's")
    chosen = getattr(module, "REVISED_SEEDS", own_fresh)  # the revised rule's
    seeds = f"seeds {own_fresh[0]}–{own_fresh[-1]}" + (
        f" ({chosen[0]}–{chosen[-1]} for the arms the revised rule reads)"
        if tuple(chosen) != tuple(own_fresh) else "")
    count = len(own_fresh)
    # An experiment whose settings take different numbers of seeds names them itself
    # (``replication_seed_words``: (words, how many members); luong_location_multi30k).
    if hasattr(module, "replication_seed_words"):
        seeds, count = module.replication_seed_words(REPLICATION_SEEDS)
    out = []
    for finding in own:
        if finding.key in revised:
            out.append(_decided_by_fresh_seeds(finding, fresh.get(finding.key),
                                               f"seeds {chosen[0]}–{chosen[-1]}",
                                               differing_for(finding.key), folder,
                                               revised[finding.key]))
            continue
        if finding.check and finding.key not in covered:
            out.append(finding)  # a check on random draws: a redraw replicates nothing
            continue
        both_ways = finding.key in getattr(module, "SEPARATES_BOTH_WAYS", ())
        # Where this row's fresh seeds are recorded (the page links them).
        records = tuple(f"{r}_replication" for r in sources(finding.key)) or (folder.name,)
        if not (finding.verdict in REPLICABLE or both_ways and finding.verdict in CONTRARY):
            again = fresh.get(finding.key)
            if again and again.verdict != "pending" and not differing_for(finding.key):
                # No verdict the page replicates (an inconclusive one, or a contrary one no
                # test separated the other way), but fresh seeds were trained: the page
                # shows what the same rule gives on them (issue 73: hard attention's
                # committed replication was on no page; a later referee found a contrary
                # verdict whose fresh seeds were committed and never shown).
                what = ("no verdict to replicate" if finding.verdict == "inconclusive" else
                        f"{finding.verdict} is not replicated here (no test separated it "
                        "the other way)")
                contradicted = again.verdict == OPPOSITE.get(finding.verdict)
                # A tenth referee: the row linked the experiment's own replication,
                # not the record that holds its fresh seeds.
                finding = dataclasses.replace(
                    finding, replicated=f"ran: {again.verdict}", replication_records=records,
                    replication=(
                        f"{what}; on {seeds}, trained anyway with the first run's config, "
                        f"the same rule gives {again.verdict}: {again.ours}"
                        + (f"; contradicted, so the first seeds' {finding.verdict} falls to "
                           "inconclusive" if contradicted else "")),
                    verdict="inconclusive" if contradicted else finding.verdict)
            out.append(finding)
            continue
        again = fresh.get(finding.key)
        verdict = finding.verdict
        differing, command = differing_for(finding.key), command_for(finding.key)  # this row's
        if finding.key in costly:
            # A fresh referee: no fresh seeds have tested it, so it is not confirmed.
            text, word = (f"not replicated (cost: {costly[finding.key]}); until fresh seeds "
                          "repeat it, the row is exploratory"), "not (cost)"
        elif finding.key not in covered:
            text, word = "not replicated yet: no replication sweep covers it", "not yet"
        elif differing:
            text, word = (f"not replicated: the replication's config differs from the first "
                          f"run's for {', '.join(differing)}", "not (config)")
        elif again is None or again.verdict == "pending":
            text, word = (f"pending: the replication on {seeds} is not recorded in full "
                          f"({command})" + (f"; {again.ours}" if again else ""), "pending")
        elif again.verdict == finding.verdict:
            text, word = f"replicated on {seeds} ({again.verdict}): {again.ours}", "yes"
        elif again.verdict == OPPOSITE[finding.verdict]:
            verdict = "inconclusive"
            text, word = (f"contradicted: {seeds} give {again.verdict} ({again.ours}); the "
                          f"first seeds gave {finding.verdict}"), "contradicted"
        else:
            # The fresh seeds decide neither way: a failure to confirm, not a contradiction,
            # and with fewer seeds than the first run it may be one of power (an audit of
            # compare_attention's replication, issue 35). The verdict falls all the same.
            verdict = "inconclusive"
            fewer = count < len(saved_seeds)
            # An audit as Luong (issue 73): for a first verdict against the paper, the
            # fresh seeds' failure to confirm is no evidence for the paper either, and
            # "fewer seeds" is said only where the replication has fewer.
            meaning = (f"a failure to confirm, which{' with fewer seeds' if fewer else ''} "
                       "may be one of power, not evidence against the claim"
                       if finding.verdict in REPLICABLE else
                       f"the claim is not ruled out on them, nor shown: no evidence for it "
                       f"either{' (with fewer seeds, a failure that may be one of power)' if fewer else ''}")
            text, word = (f"not confirmed: {seeds} ({count} seeds) give "
                          f"{again.verdict}, not the opposite verdict ({again.ours}); the "
                          f"first seeds gave {finding.verdict}. {meaning[0].upper()}"
                          f"{meaning[1:]}"), "not confirmed"
        # An undecided replication's power says what fresh seeds would decide it.
        # Its seeds count the fresh ones alone: a replication is decided on them, never
        # pooled with the first run's (a referee read the count as the whole cost).
        alone = (f" alone (the first {len(saved_seeds)} not pooled)"
                 if again is not None and getattr(again.power, "seeds_to_decide", None)
                 else "")
        power = (f"fresh seeds{alone}: {again.power}" if word == "not confirmed" and again.power
                 else finding.power)
        if word == "yes" and getattr(again.power, "seeds_to_decide", None):
            # Replicated by the row's registered rule, while the one rule's reading of
            # the fresh seeds (its power cell) leaves them undecided: the cell says so.
            power = f"{finding.power}; fresh seeds: {again.power}"
        out.append(dataclasses.replace(finding, verdict=verdict, replication=text,
                                       replicated=word, replication_records=records,
                                       power=power))
    return out


def _section(name: str, f: Finding) -> str:
    plot = f"\n\n![{f.title}]({f.plot})" if f.plot else ""
    claim = ("- **Claim:** ours alone (no paper states it)" if f.observation
             else f"- **Paper:** {f.paper}")
    again = f"- **Replication:** {f.replication}\n" if f.replication else ""
    built = f"- **By construction:** {f.construction}\n" if f.construction else ""
    fresh = [r for r in (f.replication_records or (f"{name}_replication",))
             if (ROOT / "experiments" / "results" / r).is_dir()]
    replication = ("; replication in " + ", ".join(f"[`results/{r}/`](results/{r}/)"
                                                   for r in fresh)
                   if f.replication and fresh else "")
    recorded = (ROOT / "experiments" / "results" / name).is_dir()
    record = (f"record in [`results/{name}/`](results/{name}/)" if recorded
              else "not recorded yet")
    plot = plot if recorded else ""  # nothing to show before the run
    reads = [r for r in f.records if (ROOT / "experiments" / "results" / r).is_dir()]
    reads = ("; reads " + ", ".join(f"[`results/{r}/`](results/{r}/)" for r in reads)
             if reads else "")
    return (f'<a id="{f.key}"></a>\n### {f.title}\n\n{claim}\n'
            f"- **Ours:** {f.ours}\n- **Verdict:** {f.verdict} — {f.why}\n{built}{again}"
            f"- **Experiment:** [`experiments/{name}.py`]({name}.py), {record}"
            f"{reads}{replication}{plot}")


def _decided_by_fresh_seeds(finding: Finding, again: Finding | None, seeds: str,
                            differing: list, folder: Path, why: str) -> Finding:
    """A finding whose registered rule an audit found not to measure what it names
    (``DECIDED_BY_FRESH_SEEDS``: {key: why}): its first seeds' verdict by that rule is
    shown but decides nothing, so the row is inconclusive until the replication's fresh
    seeds, decided by a revised rule written before they ran (the experiment's code
    applies it to the replication record), give the verdict. That run is the
    confirmatory one, so it is not replicated again here."""
    voided = (f"the first seeds gave {finding.verdict} by the registered rule, whose "
              f"statistic an audit found void ({why})" if finding.verdict != "pending" else
              f"the first seeds are not recorded in full; the registered rule's verdict "
              f"on them will decide nothing, its statistic an audit found void ({why})")
    if differing:
        text = (f"not decided: the replication's config differs from the first run's for "
                f"{', '.join(differing)}; {voided}")
        return dataclasses.replace(finding, verdict="inconclusive", replication=text,
                                   replicated="not (config)")
    if again is None or again.verdict == "pending":
        # Nothing recorded yet, first seeds or fresh: the row waits. First seeds decided
        # by the void rule: inconclusive until the fresh ones are in.
        waiting = finding.verdict == "pending"
        text = (f"pending: {seeds}, decided by the revised rule, are not recorded in full "
                f"(`python launch.py --config=experiments/"
                f"{folder.name.removesuffix('_replication')}.py:replicate`); {voided}"
                + ("" if waiting else ", so the row is inconclusive until then"))
        return dataclasses.replace(finding, verdict="pending" if waiting else "inconclusive",
                                   replication=text, replicated="pending (revised)")
    # The row shows what decided it: the fresh seeds' numbers and the revised rule; the
    # first seeds' reading by the registered rule moves to the replication line (an
    # audit found the row showing the old statistic beside the new verdict).
    text = (f"decided on {seeds} by the revised rule, written before they ran "
            f"({again.verdict}); {voided}. The first seeds, by the registered rule "
            f"({finding.why}): {finding.ours}")
    return dataclasses.replace(finding, verdict=again.verdict, ours=again.ours,
                               title=again.title, power=again.power or finding.power,
                               why=f"{again.why} (the revised rule, written before {seeds} "
                                   "ran)", replication=text, replicated="revised rule")


def _tally(found) -> str:
    """How the replicable verdicts stand with their replications."""
    # Checks are counted apart, and a row that repeats another's contrast once (a
    # third referee found both in this count).
    found = [(n, f) for n, f in found if not f.check and not f.repeats]
    revised = {"pending (revised)": "to be decided", "revised rule": "decided"}
    ran = [f.replicated for _, f in found if (f.replicated or "").startswith("ran: ")]
    words = [f.replicated for _, f in found if f.replicated and f.replicated not in revised
             and f.replicated not in ran]
    counts = {w: words.count(w) for w in dict.fromkeys(words)}
    names = {"yes": "replicated",
             "not confirmed": "not confirmed by fresh seeds that decide neither way (now "
                              "inconclusive)",
             "contradicted": "contradicted by fresh seeds (now inconclusive)"}
    tally = (f"of {len(words)} verdicts that separate, " + ", ".join(
        f"{n} {names.get(w, w)}" for w, n in counts.items()))
    later = [f.replicated for _, f in found if f.replicated in revised]
    if later:
        tally += "; " + ", ".join(
            f"{later.count(w)} {name}" for w, name in revised.items() if w in later) + (
            " on fresh seeds by a revised rule, written before they ran, where an audit "
            "found the registered rule did not measure what it names")
    if ran:
        tally += (f"; and {len(ran)} row(s) with no verdict to replicate (undecided, or a "
                  "contrary verdict no test separated) whose fresh seeds were trained "
                  "anyway ('ran: ' and what the same rule gives on them)")
    return tally


def citation(paper: str) -> str:
    """Who and where, without the claim: a finding's ``paper`` up to its first colon
    ('Luong et al. 2015, Table 4 (BLEU, WMT'14 En→De)')."""
    return paper.split(":", 1)[0]


def _verdict_cell(f: Finding) -> str:
    """The verdict, bold; one not replicated for its cost says it is exploratory in the
    table too, not only in its section (a referee)."""
    return f"**{f.verdict}**" + (" (exploratory)" if f.replicated == "not (cost)" else "")


def page(found) -> str:
    claims = [(name, f) for name, f in found if not f.observation and not f.check]
    observed = [(name, f) for name, f in found if f.observation and not f.check]
    checks = [(name, f) for name, f in found if f.check]
    # The summary is for scanning (issue 38: no table row of prose): each row names the
    # claim, its source and the verdict; the numbers and the test are in its section.
    summary = markdown_table(
        ["finding", "paper", "verdict", "replicated", "power (80%)"],
        [[f"[{f.title}](#{f.key})", citation(f.paper),
          _verdict_cell(f) + (f" (repeats [its contrast](#{f.repeats}))" if f.repeats else ""),
          f.replicated or "—", f.power or "—"] for _, f in claims])
    counted = [(n, f) for n, f in claims if not f.repeats]
    counts = ", ".join(f"{sum(f.verdict == v for _, f in counted)} {v}" for v in VERDICTS)
    again = len(claims) - len(counted)
    if again:
        counts += (f" ({again} more row(s) read another row's contrast again, marked "
                   "'repeats', and are not counted)")
    text = (f"# Findings\n\nGenerated by `{COMMAND}` from the committed files under "
            "`experiments/results/` alone; do not edit by hand. Each row of the table links "
            "to its section: the paper's claim and number, ours with its 95% interval over "
            "seeds, and the verdict the experiment's `findings()` reaches by the test it "
            f"names. {counts}. Every "
            "reproduced or holds verdict, and a not reproduced or does not hold one that "
            "a test separated the other way, is rerun on seeds never used before, or "
            "says why not and reads 'exploratory' until fresh seeds repeat it (seeds "
            "100-102 where the experiment names none of its own, fewer than its first run, "
            "so a replicate has less power; other experiments name as many as their first "
            "run; each section names its seeds); one the fresh seeds "
            "do not repeat is inconclusive (the 'replicated' column; each section says what "
            "the fresh seeds gave, or why they were not run). Until its replication is "
            f"recorded a verdict counts as its first seeds gave it: {_tally(found)}. "
            "The power column gives, by the lab's one decision rule "
            "(experiments/lab/rule.py) on the contrasts that decide the row (a row on its "
            "own registered rule says what the one rule gives), the smallest distance of "
            "the true difference from the row's threshold that its design decides at 80% "
            "power and, for an inconclusive row, the seeds an arm that would decide the "
            "observed difference (were its mean and spread the truth; a BLEU test's "
            "sentences are the same whatever the seeds) and what they would cost here, or "
            "why no number of seeds would and what would instead ('fresh seeds:' where a "
            "replication left the row undecided).\n\n"
            + summary + "\n\n" + "\n\n".join(_section(n, f) for n, f in claims) + "\n")
    if checks:
        table = markdown_table(["check", "paper", "verdict", "replicated"],
                               [[f"[{f.title}](#{f.key})", citation(f.paper or "ours"),
                                 f"**{f.verdict}**", f.replicated or "—"] for _, f in checks])
        tally = ", ".join(f"{sum(f.verdict == v for _, f in checks)} {v}"
                          for v in CHECK_VERDICTS)
        text += ("\n## Checks by construction\n\nA paper's arithmetic computed as the paper "
                 "states it, or a mechanism's property read off trained models: the outcome "
                 "follows from the construction, so a check verifies the code and the "
                 "property, not a claim the models could have refuted. Checks are not "
                 "counted among the findings above; those on trained models are replicated "
                 f"on fresh seeds, those on random draws are not. {tally}.\n\n" + table + "\n\n"
                 + "\n\n".join(_section(n, f) for n, f in checks) + "\n")
    if observed:
        # An undecided observation says what would decide it, as a finding does (a fresh
        # referee found the observations' table had no power column).
        table = markdown_table(["observation", "verdict", "replicated", "power (80%)"],
                               [[f"[{f.title}](#{f.key})", _verdict_cell(f),
                                 f.replicated or "—", f.power or "—"] for _, f in observed])
        tally = ", ".join(f"{sum(f.verdict == v for _, f in observed)} {v}"
                          for v in OBSERVATION_VERDICTS)
        text += ("\n## Observations\n\nClaims the docs make that no paper states, "
                 "each decided from the committed results by the test it names, as the "
                 f"papers' claims above are. {tally}.\n\n" + table + "\n\n"
                 + "\n\n".join(_section(n, f) for n, f in observed) + "\n")
    return text


def main(argv=None):
    parser = argparse.ArgumentParser(description="Rebuild experiments/FINDINGS.md.")
    parser.add_argument("--redraw", action="store_true",
                        help="first redraw every recorded sweep report from its members")
    args = parser.parse_args(argv)
    if args.redraw:
        from experiments.lab.record import redraw
        for folder in sorted((ROOT / "experiments" / "results").glob("*/")):
            count = redraw(folder)
            if count:
                print(f"redrew {folder.relative_to(ROOT)} from {count} members")
    found = collect()
    write_atomically(ROOT / "experiments" / "FINDINGS.md", page(found))
    print(f"wrote experiments/FINDINGS.md: {len(found)} findings")


if __name__ == "__main__":
    main()
