"""attention_research: classic attention formulations as small Flax modules.

Layout (see docs/extending.md): ``attention`` holds the score functions and alignments and
their registries, ``models`` the model families (RNN encoder-decoder, Transformer)
and theirs, ``tasks`` the task protocol and the registered tasks (copy, reverse,
translation), ``training`` the member-axis train state, steps, loop and sweeps;
``data`` the special tokens and Batch every task produces; ``decoding``,
``evaluation``, ``plotting``, ``reports``, ``workdir``, ``checkpoints`` and
``config_checks`` do what their names say.
"""

__version__ = "0.1.0"
