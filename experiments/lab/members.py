"""What the lab's per-member scripts share (attention_sharpness and score_failed_members;
second_test_set takes the provenance): walk a sweep's work directory for the
translation members a script has not yet written its file for, write that file with
where it was made, and a command line whose bad input is one line.

A script's ``score(workdir, only)`` walks ``each_translation_run`` with the member status
it reads and the file it writes, writes that file through ``write_with_provenance``, and
returns the members it wrote; its command line is ``main(score, __doc__, verb)``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def each_translation_run(workdir: Path, *, only: str, status: str, written: str, why: str):
    """(member folder, loaded run) for each member of ``workdir`` whose name holds
    ``only``, whose summary.json says ``status`` and that has no ``written`` file yet.
    A member of a symbol task stops the walk in one line that ends with ``why``."""
    import attention_research
    from attention_research.running.workdir import read_json
    for summary in sorted(Path(workdir).glob("members/*/summary.json")):
        member = summary.parent
        if (only not in member.name or (member / written).is_file()
                or read_json(summary).get("status") != status):
            continue
        run = attention_research.load(workdir, member=member.name)
        if run.task.evaluation != "corpus":
            raise SystemExit(f"error: {member.name} is a {run.config.task.name} member: this "
                             f"reads translation members ({why})")
        yield member, run


def provenance() -> dict:
    """The code, software and device that make a figure now, to be written beside it, so
    that a record never names a tree or machine it was not made on."""
    import jax

    from attention_research.running.provenance import code_version, software_versions
    return {"code": code_version(), "software": software_versions(),
            "device": jax.devices()[0].device_kind}


def write_with_provenance(path: Path, figures: dict) -> None:
    """``figures`` as JSON at ``path``, atomically, with their ``provenance()``."""
    from attention_research.running.workdir import write_atomically
    write_atomically(path, json.dumps({**figures, **provenance()}, indent=1,
                                      sort_keys=True) + "\n")


def main(score, doc: str, verb: str, argv=None) -> list[str]:
    """The command line of a script whose ``score(workdir, only)`` returns the members
    it wrote: a folder without members, or a member whose checkpoint is missing, is one
    line, and nothing already written is lost."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("workdir", type=Path, help="the sweep's work directory (--workdir)")
    parser.add_argument("--only", default="", help=f"{verb} only members whose names hold this")
    args = parser.parse_args(argv)
    if not (args.workdir / "members").is_dir():
        raise SystemExit(f"error: {args.workdir} holds no members (members/): pass the "
                         "sweep's work directory, the --workdir it trained in")
    from attention_research.errors import InputError, RunError
    try:
        done = score(args.workdir, args.only)
    except (RunError, InputError) as error:  # a missing checkpoint: one line
        raise SystemExit(f"error: {error}") from None
    if not done:
        print(f"nothing to {verb}: no member left" + (f" whose name holds {args.only!r}"
                                                    if args.only else ""))
    return done
