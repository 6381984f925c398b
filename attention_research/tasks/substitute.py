"""``substitute``: copy, except that some symbols must be written as a symbol that no
source ever holds — a task on which copying is right for some target tokens and
generating is right for the others, so that a pointer-generator's gate (See, Liu &
Manning 2017, §2.2) can be read against a known answer (issue 35: on copy, reverse and
sort every target token but EOS is a source token, and "copies 93%" restates that).

Sources draw only the even symbols 0, 2, 4, …; step t reads position t, as in copy,
and writes the symbol read when it is a multiple of 4, and that symbol + 1 (odd: in no
source) otherwise. About half the target tokens are copies and half are generated. The
alignment is copy's: step t reads position t.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from attention_research.data import NUM_SPECIAL, PAD
from attention_research.errors import require
from attention_research.tasks.synthetic import Copy


class Substitute(Copy):
    """Copy, with the symbols 2, 6, 10, … written as 3, 7, 11, … (never in a source)."""

    name = "substitute"

    @staticmethod
    def draw_symbols(key, shape, num_symbols: int):
        return 2 * jax.random.randint(key, shape, 0, num_symbols // 2)

    @staticmethod
    def target_tokens(read):
        symbol = read - NUM_SPECIAL
        written = jnp.where(symbol % 4 == 2, read + 1, read)
        return jnp.where(read == PAD, PAD, written)

    @classmethod
    def validate(cls, config):
        super().validate(config)
        require(config.task.num_symbols >= 4,
                f"task.num_symbols must be >= 4 for substitute (sources use the even "
                f"symbols, and half of them are written as the next odd one), got "
                f"{config.task.num_symbols}")
