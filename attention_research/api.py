"""Training a run or a sweep with everything it draws and reports: the running layer
(``running/run.py``, ``running/sweep.py``) with the figures and sweep reports of
``reports/figures.py`` handed in. ``launch.py`` runs these; so can a notebook:

    from attention_research import api
    from configs import additive
    summary = api.train(additive.get_config("reverse"), "runs/additive")

The layers below stay free of figures: ``running.run.train`` trains and scores the
same, and draws nothing.
"""

from __future__ import annotations

from attention_research.reports.figures import figures_for, sweep_report_for
from attention_research.running import run as _run
from attention_research.running import sweep as _sweep


def train(config, workdir, **kwargs) -> dict:
    """Train (or resume) one run in ``workdir``, with its figures; its summary
    (``running.run.train``'s keywords)."""
    return _run.train(config, workdir, figures=figures_for, **kwargs)


def train_cohort(configs, workdirs, checkpoint_dir, **kwargs) -> list:
    """Train (or resume) one cohort, with its figures (``running.run.train_cohort``)."""
    return _run.train_cohort(configs, workdirs, checkpoint_dir, figures=figures_for, **kwargs)


def run_sweep(base_config, sweep, workdir, **kwargs):
    """Train a sweep, with its members' figures and its report (``running.sweep.run_sweep``)."""
    return _sweep.run_sweep(base_config, sweep, workdir, figures=figures_for,
                            sweep_report=sweep_report_for, **kwargs)


def report_writer(members):
    """The report of a sweep's ``members`` (``running.sweep.report_writer``)."""
    return _sweep.report_writer(members, sweep_report_for)
