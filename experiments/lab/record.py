"""Record a sweep into the repository: ``python launch.py --config=experiments/NAME.py
--record`` copies what its work directory holds into ``experiments/results/NAME/``.

What is copied (each file replaces the file of the same name, and nothing else is
ever deleted there, so hand-written notes such as a README stay; commands.txt is the
exception: its lines are kept and the work directory's new ones added, so a sweep
resumed in a fresh work directory on another machine loses no earlier command):

    summary.md, summary.csv, significance.md, commands.txt   the report
    only/<text>/                    the report of the members --only=<text> named
    members/<member>/{config.json,summary.json,metrics.jsonl}     every finished member
    members/<member>/rescored.json       a failed member scored (score_failed_members)
    members/<member>/translations/                                 its outputs, if any
        (a corpus whose texts may not be committed, datasets.NOT_REDISTRIBUTED: the
        hypotheses and each split's sentences.tsv of scoring statistics only, and
        summary.json without its samples' sources and references)

and of the figures, only those a page shows (experiments/lab/pages.py: a Markdown file of
the checkout or of the record names the figure's path), so that records stay small:

    plots/*.png                          the report's plots
    plots/attention_<setting>.png       the heat maps of each setting's first member
    plots/explicit_vs_implicit_<setting>.png   its side-by-side maps (analysis.implicit)

The others stay in the work directory; record() says how many. To commit one, name it
in a page (the record's README, a docs page, a claim's row), then record again.

Finished members are recorded even while the sweep is unfinished, so a sweep longer
than a session can be committed member by member; once the record has a report, a member
it lacks (one from another work directory: a gate's sweep, trained apart) redraws the
report from every recorded member (``redraw``), so no work directory's report hides
another's rows. Copying ``members/`` back into a work directory makes a later run skip
them (a finished member is never retrained).

``redraw`` rebuilds a record's report (tables and plots) from its members' files
alone, with the report code of today and the baseline today's experiment file names
(``config.baseline``): ``python -m experiments.lab.findings --redraw``.
"""

from __future__ import annotations

import csv
import re
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

import ml_collections

from attention_research.running import config_files
from attention_research.reports.setting_names import setting_name
from attention_research.running.workdir import read_json, write_atomically
from experiments.lab.pages import shown_images

REPORT_FILES = ("summary.md", "summary.csv", "significance.md")
MEMBER_FILES = ("config.json", "summary.json", "metrics.jsonl", "rescored.json",
                "attention.json")


def _copy(source: Path, destination: Path):
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, destination)


def _merge_commands(source: Path, destination: Path):
    """The recorded commands, then the work directory's that the record lacks. The work
    directory appends a line per launch, so its lines continue the record's last ones
    (recorded before, from the same or from an earlier copy of it): the longest end of
    the record that begins the work directory's list is not written twice. A work
    directory made afresh elsewhere starts empty, and its lines follow the record's."""
    new = source.read_text().splitlines()
    old = destination.read_text().splitlines() if destination.is_file() else []
    overlap = next(n for n in range(min(len(old), len(new)), -1, -1)
                   if old[len(old) - n:] == new[:n])
    lines = old + new[overlap:]
    destination.parent.mkdir(parents=True, exist_ok=True)
    # The record may hold the only copy of earlier sessions' lines: never half-written.
    write_atomically(destination, "".join(line + "\n" for line in lines))


def record(workdir, destination) -> list[str]:
    """Copy a sweep's report and finished members from ``workdir`` into ``destination``;
    returns the member names recorded."""
    workdir, destination = Path(workdir), Path(destination)
    if not any((member / "summary.json").is_file()
               for member in (workdir / "members").glob("*/")):
        return []  # nothing finished: nothing is written, not even the folder
    for name in REPORT_FILES:
        if (workdir / name).is_file():
            _copy(workdir / name, destination / name)
    if (workdir / "commands.txt").is_file():
        _merge_commands(workdir / "commands.txt", destination / "commands.txt")
    shown, left = shown_images(destination), []

    def copy_figure(figure: Path, to: Path):
        if to.resolve() in shown:
            _copy(figure, to)
        else:
            left.append(figure)

    for plot in sorted((workdir / "plots").glob("*.png")):
        copy_figure(plot, destination / "plots" / plot.name)
    for report in sorted((workdir / "only").glob("*/")):
        for found in sorted(p for p in report.rglob("*") if p.is_file()):
            (copy_figure if found.suffix == ".png" else _copy)(
                found, destination / found.relative_to(workdir))
    recorded, drawn = [], set()
    for member in sorted((workdir / "members").glob("*/")):
        if not (member / "summary.json").is_file():
            continue  # unfinished: its summary is written last
        read_json(member / "summary.json")  # refuse to record a damaged one, naming it
        restricted = _not_redistributed(member)
        for name in MEMBER_FILES:
            if (member / name).is_file():
                if name == "summary.json" and restricted:
                    _write_without_texts(member / name,
                                         destination / "members" / member.name / name)
                else:
                    _copy(member / name, destination / "members" / member.name / name)
        outputs = destination / "members" / member.name / "translations"
        for output in sorted((member / "translations").glob("*.txt")):
            if restricted and not output.name.endswith(".hypothesis.txt"):
                continue  # the corpus's own sentences stay out of the repository
            _copy(output, outputs / output.name)
        if restricted:
            _write_sentence_tables(member / "translations", outputs)
        setting = setting_name(member.name)
        if setting not in drawn:
            for plot in ("attention", "explicit_vs_implicit"):
                if (member / "plots" / f"{plot}.png").is_file():
                    copy_figure(member / "plots" / f"{plot}.png",
                                destination / "plots" / f"{plot}_{setting}.png")
            drawn.add(setting)
        recorded.append(member.name)
    if _report_lacks_members(destination):
        # The record holds members of other work directories (a gate's or a replication's
        # sweep, trained apart): its report is redrawn from them all, so that no copied
        # report of one work directory hides the others' rows.
        redraw(destination)
        print(f"the report of {destination} was redrawn from all its recorded members",
              file=sys.stderr)
    write_readme(destination)
    if left:
        print(f"{len(left)} figure(s) no page shows stay in {workdir}, not in {destination} "
              "(name one in a page, e.g. the record's README, and record again to keep it)",
              file=sys.stderr)
    return recorded


def _report_lacks_members(destination: Path) -> bool:
    """Whether the record's report (summary.csv) lists fewer members than it holds."""
    table = destination / "summary.csv"
    if not table.is_file():
        return False  # no report yet: the sweep's own is copied when it is finished
    with open(table, newline="") as rows:
        listed = {row.get("member") for row in csv.DictReader(rows)}
    return any(summary.parent.name not in listed
               for summary in destination.glob("members/*/summary.json"))


MARKER = "This README was written by `experiments.lab.record`"  # how one is known
# The marker before the lab left the package (issue 70): such READMEs are still generated.
MARKERS = (MARKER, "This README was written by `attention_research.record`")
GENERATED = (MARKER + " from the sweep file's docstring and the record's files, because "
             "the record had none; it is rewritten as the record grows until notes of your "
             "own replace it.")


def write_readme(destination) -> bool:
    """Give a record that has no README.md one made from what it holds (issue 38:
    every record says what it is): its sweep file's first paragraph, the commands that
    made it, what it holds, and the rows of experiments/FINDINGS.md that read it.
    Nothing is typed by hand. A README of someone's own is never touched; one written
    here is written again, so that it follows the record. Returns whether it wrote."""
    destination = Path(destination)
    readme = destination / "README.md"
    if readme.exists() and not any(marker in readme.read_text() for marker in MARKERS):
        return False  # notes of someone's own
    name = destination.name
    experiment = name.removesuffix("_replication").removesuffix("_translation")
    parents = destination.resolve().parents  # experiments/results/NAME -> the repository
    root = parents[2] if len(parents) > 2 else destination
    sweep_file = root / "experiments" / f"{experiment}.py"
    if not sweep_file.is_file():  # a record a script writes: the file that names it
        sweep_file = next((f for f in sorted((root / "experiments").glob("*.py"))
                           if f"results/{name}/" in f.read_text()), sweep_file)
        experiment = sweep_file.stem
    lines = [f"# {name}", ""]
    if name.endswith("_replication"):
        replicated = name.removesuffix("_replication")  # the record it replicates
        lines += [f"The replication of [`{replicated}`](../{replicated}/) on seeds never used "
                  "before (issue 35): the settings its replicable findings read, decided "
                  "again by the same code.", ""]
    if sweep_file.is_file():
        import ast
        doc = ast.get_docstring(ast.parse(sweep_file.read_text())) or ""
        paragraphs = [part.strip() for part in doc.split("\n\n")]
        # The paragraph that names this record, else the docstring's first (the header's
        # Cost: and Result: lines name every record: they say what it cost, not what it is).
        index = next((i for i, part in enumerate(paragraphs) if f"results/{name}/" in part
                      and not part.startswith(("Cost:", "Result:"))), 0)
        first = paragraphs[index] if paragraphs else ""
        if first.endswith(":") and index + 1 < len(paragraphs):  # and the command it names
            first += "\n\n" + paragraphs[index + 1]
        if first:
            lines += [f"From [`experiments/{experiment}.py`](../../{experiment}.py):", "",
                      *(f"> {line}" for line in first.splitlines()), ""]
    commands = destination / "commands.txt"
    if commands.is_file() and commands.read_text().strip():
        lines += ["Commands, as `commands.txt` holds them:", "", "```bash",
                  *commands.read_text().strip().splitlines(), "```", ""]
    members = sorted(p.parent.name for p in destination.glob("members/*/summary.json"))
    held = [f"{len(members)} finished member(s) under `members/`" if members else "",
            "the report, [summary.md](summary.md)" if (destination / "summary.md").is_file()
            else "", "plots under `plots/`" if (destination / "plots").is_dir() else ""]
    held += [f"[{p.name}]({p.name})" for p in sorted(destination.glob("*.md"))
             if p.name not in ("README.md", "summary.md")]
    held = [h for h in held if h]
    if held:
        lines += ["It holds " + ", ".join(held) + ".", ""]
    findings = root / "experiments" / "FINDINGS.md"
    if findings.is_file():
        import re
        anchors, current = [], None
        for line in findings.read_text().splitlines():
            match = re.match(r'<a id="([^"]+)"></a>', line)
            current = match.group(1) if match else current
            if current and f"results/{name}/" in line and current not in anchors:
                anchors.append(current)
        if anchors:
            lines += ["The findings that read it: " + ", ".join(
                f"[{a}](../../FINDINGS.md#{a})" for a in anchors) + ".", ""]
    lines += [GENERATED, ""]
    write_atomically(readme, "\n".join(lines))
    return True


def _not_redistributed(member: Path) -> bool:
    """Whether the member trained on a corpus whose texts may not be committed
    (``datasets.NOT_REDISTRIBUTED``: Multi30k's licence)."""
    if not (member / "translations").is_dir() or not (member / "config.json").is_file():
        return False
    from attention_research.tasks.translation.datasets import NOT_REDISTRIBUTED
    return read_json(member / "config.json").get("task", {}).get("dataset") in NOT_REDISTRIBUTED


def _write_without_texts(source: Path, destination: Path):
    """summary.json without its sample sentences' source and reference texts."""
    import json
    summary = read_json(source)
    for entry in summary.get("members", []):
        for sample in entry.get("samples", []):
            for field in ("source", "reference"):
                sample.pop(field, None)
    destination.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(destination, json.dumps(summary, indent=2, allow_nan=False) + "\n")


def _write_sentence_tables(translations: Path, destination: Path):
    """Per split, what the findings' tests need without the corpus's texts: each
    sentence's source word count and BLEU statistics (metrics.SENTENCE_COLUMNS).
    A member copied into a work directory from a record (so that a sweep resumed on a
    fresh machine does not retrain it) has its table and no texts: the table is kept."""
    from attention_research.tasks.translation import metrics
    read = lambda split, kind: (translations / f"{split}.{kind}.txt").read_text().splitlines()  # noqa: E731
    for hypotheses in sorted(translations.glob("*.hypothesis.txt")):
        split = hypotheses.name.removesuffix(".hypothesis.txt")
        recorded = translations / f"{split}.sentences.tsv"
        if not (translations / f"{split}.reference.txt").is_file() and recorded.is_file():
            _copy(recorded, destination / recorded.name)
            continue
        table = metrics.sentence_table(read(split, "hypothesis"), read(split, "reference"),
                                       read(split, "source"))
        destination.mkdir(parents=True, exist_ok=True)
        write_atomically(destination / f"{split}.sentences.tsv", table)


def recorded_members(destination) -> list:
    """The recorded members of ``destination`` as sweep Members (config from their
    config.json), in the order of its summary.csv (the sweep's order); members that
    the table does not list follow in name order."""
    from attention_research.running.sweeps import Member
    destination = Path(destination)
    folders = {f.name: f for f in sorted((destination / "members").glob("*/"))
               if (f / "summary.json").is_file()}
    order = []
    if (destination / "summary.csv").is_file():
        with open(destination / "summary.csv", newline="") as table:
            order = [row["member"] for row in csv.DictReader(table)]
    names = [n for n in order if n in folders] + [n for n in folders if n not in order]
    return [Member(index, name, ml_collections.ConfigDict(
                read_json(folders[name] / "config.json")), folders[name])
            for index, name in enumerate(names)]


ROOT = Path(__file__).resolve().parents[2]  # where a record's commands were run


def first_launch(record) -> list[str]:
    """The words of the first launch.py command in ``record``/commands.txt (its comment
    cut off), [] where it holds none: the command that made the record."""
    commands = Path(record) / "commands.txt"
    lines = commands.read_text().splitlines() if commands.is_file() else []
    line = next((line for line in lines if "launch.py" in line), "")
    return shlex.split(line.split("#")[0])


def launched_experiment(record) -> tuple[str, str | None] | None:
    """(experiment name, its argument) of the record's first launch
    (``--config=experiments/NAME.py:ARG``), or None where it names no experiment file."""
    spec = next((w[len("--config="):] for w in first_launch(record)
                 if w.startswith("--config=")), "")
    match = re.fullmatch(r"experiments/(\w+)\.py(?::(.+))?", spec)
    return (match[1], match[2]) if match else None


def experiment_baseline(destination) -> str | None:
    """The ``config.baseline`` that today's experiment file gives the record
    ``destination``: the config of the first launch its commands.txt holds
    (``--config=experiments/NAME.py:ARG``, the command that made the record, as
    ``launched_experiment`` reads it; a later launch may be a gate's, whose sweep holds
    its own arm alone), so that a redrawn report reads its settings against the
    baseline the experiment names now, also where its members' config.json were written
    before the field (or before the experiment named one). None where the record names
    no launch or its file does not load (said on stderr): the members' own value then
    stands."""
    commands = Path(destination) / "commands.txt"
    launches = re.findall(r"--config=(\S+)", commands.read_text()) if commands.is_file() else []
    if not launches:
        return None
    path, _, argument = launches[0].partition(":")
    try:
        config = config_files.call(
            config_files.load(ROOT / path, "_recorded_experiment").get_config, argument)
    except Exception as error:  # a renamed file or argument: redraw with what was saved
        print(f"{destination}: the baseline of {launches[0]} could not be read ({error}); "
              "the members' config.json give it", file=sys.stderr)
        return None
    return config.get("baseline", "")


def redraw(destination) -> int:
    """Rewrite a record's summary.md, summary.csv and the report plots a page shows from
    its members' files with today's report code (reports/figures.py's ``sweep_report_for``); returns how many
    members it read. Heat maps and hand-written notes are left as they are. A record
    with no summary.csv holds a sweep recorded before it finished (its members one by
    one): it has no report to redraw until the sweep is finished, and is left alone.
    Its ``only/<text>/`` reports are redrawn too, each from the members whose name holds
    ``<text>``, as ``--only`` chose them (findings read them for members the sweep's
    report lacks, and their plots are linked from the docs)."""
    if not (Path(destination) / "summary.csv").is_file():
        return 0
    members = recorded_members(destination)
    if not members:
        return 0
    baseline = experiment_baseline(destination)
    if baseline is not None:
        for member in members:
            member.config.baseline = baseline
    summaries = {m.name: read_json(m.workdir / "summary.json") for m in members}
    groups = [(Path(destination), members)] + [
        (folder, [m for m in members if folder.name in m.name])
        for folder in sorted(Path(destination).glob("only/*/"))
        if (folder / "summary.csv").is_file()]
    shown = shown_images(destination)
    for folder, chosen in groups:
        if chosen:  # an only/ folder whose text no recorded member holds is left alone
            _redraw_report(folder, chosen, [summaries[m.name] for m in chosen], shown)
    return len(members)


def _redraw_report(folder: Path, members, summaries, shown: set[Path]):
    """Write the report of ``members`` beside, then keep its tables in ``folder`` and,
    of its plots, those a page shows (as record() copies them)."""
    from attention_research.api import report_writer
    with tempfile.TemporaryDirectory() as drawn:
        drawn = Path(drawn)
        report_writer(members)(drawn, members, summaries, members[0].config.max_cohort_members)
        for written in sorted(p for p in drawn.rglob("*") if p.is_file()):
            target = folder / written.relative_to(drawn)
            if written.suffix != ".png" or target.resolve() in shown:
                _copy(written, target)
