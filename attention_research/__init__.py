"""attention_research: classic attention formulations as small Flax modules.

The package is a stack of layers; each imports only from its own layer and the ones
below it (``LAYERS``, bottom first; tests/test_layout.py checks every import, those
inside functions too). docs/extending.md says what each module holds.

* ``errors``, ``data``, ``metric_names``: the errors every layer raises; the special
  tokens and ``Batch``; the name of every logged metric.
* ``attention``: the score functions and alignments, and their registries.
* ``models``: the model families (RNN encoder-decoder, Transformer, decoder-only).
* ``analysis``: implicit attention, rollout and agreement, functions of a model.
* ``tasks``: the data of each task (vocabularies, batches, held-out sets, known
  alignments) and the definitions of its metrics, registered by name.
* ``training``: the member-axis train state, the steps, decoding, evaluation, the
  config checks and the loop.
* ``running``: work directories, checkpoints, locks, preemption, config files, sweeps.
* ``reports``: statistics over seeds, tables and figures.
* ``use``: a trained model on inputs of one's own: predict, attention, evaluate
  (``python -m attention_research.use``; ``load`` below).
* ``api``: training and sweeps with their figures and reports handed in (what
  ``launch.py`` runs).

The lab (``experiments/``) sits on top: it imports the package, never the reverse.
"""

__version__ = "0.1.0"


def load(workdir, member=None, step=None):
    """A trained run, for a notebook: ``attention_research.use.trained.load``
    (docs/using.md). Imported when called: importing the package stays light."""
    from attention_research.use.trained import load as load_run
    return load_run(workdir, member, step)

# Each layer: its name and the top-level modules and folders of the package it holds.
LAYERS = (
    ("base", ("errors", "data", "metric_names")),
    ("attention", ("attention",)),
    ("models", ("models",)),
    ("analysis", ("analysis",)),
    ("tasks", ("tasks",)),
    ("training", ("training",)),
    ("running", ("running",)),
    ("reports", ("reports",)),
    ("use", ("use",)),
    ("api", ("api",)),
)
