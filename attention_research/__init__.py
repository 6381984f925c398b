"""attention_research: classic attention formulations as small Flax modules.

Layout (see README): ``attention`` holds the score functions and alignments,
``models`` the RNN encoder-decoder, ``tasks`` the copy/reverse tasks, ``training``
the member-axis train state, steps and loop; ``decoding``, ``evaluation``,
``plotting``, ``workdir`` and ``checkpoints`` do what their names say.
"""

__version__ = "0.1.0"
