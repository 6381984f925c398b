"""``sort``: the output is the source symbols in ascending order, then EOS.

The content-addressed task. Which source position output step t reads depends on the
symbols themselves, not on t or the source length: the alignment target of step t is
the position of the t-th smallest symbol, ties broken left to right (a stable sort).
Attention that finds positions by where it is rather than by what is there —
``location`` (the target state alone) and ``local_m`` (a window around p_t = t) —
should fail here by design, where copy and reverse let them succeed or half succeed.
"""

from __future__ import annotations

import jax.numpy as jnp

from attention_research.tasks.synthetic import SymbolTask


class Sort(SymbolTask):
    """The output is the source sorted: step t reads the t-th smallest symbol."""

    name = "sort"

    @staticmethod
    def source_positions(source, lengths):
        valid = jnp.arange(source.shape[1])[None, :] < lengths[:, None]
        keys = jnp.where(valid, source, jnp.iinfo(source.dtype).max)  # padding sorts last
        return jnp.argsort(keys, axis=1, stable=True)
