"""What the score does to the softmax before any training, as the dimension d grows
(Vaswani et al. 2017, §3.2.1: "for large values of d_k, the dot products grow large in
magnitude, pushing the softmax function into regions where it has extremely small
gradients"; footnote 4: with unit-variance components, qᵀk has variance d_k).

Queries and keys are drawn with unit-variance components, as a pre-LN Transformer's
projections or layer-normalised RNN states give them, and each score module is
initialised as a model initialises it (the registry's own class). For every query:

- the score's standard deviation over the source positions (dot: √d),
- the attention entropy (nats; ln S is uniform, 0 is one-hot),
- the largest weight,
- the Frobenius norm of the softmax's Jacobian ∂α/∂e = diag(α) − ααᵀ, which is what
  carries the gradient back to the scores: it vanishes as the softmax saturates.

Each figure is the mean over queries of one draw (one parameter and data seed); the
table gives the mean over seeds and its 95% t interval.

    python -m attention_research.reports.score_statistics --out=experiments/results/score_scaling
    python -m attention_research.reports.score_statistics \
        --out=experiments/results/score_scaling_replication --first-seed=100 --seeds=3
"""

from __future__ import annotations

import itertools
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from attention_research.reports import plotting, stats
from attention_research.attention import registry
from attention_research.attention import scores as _scores  # noqa: F401  (registers them)
from attention_research.reports.tables import markdown_table, write_csv
from attention_research.running.workdir import write_atomically

SCORES = ("dot", "scaled_dot", "general", "additive")
DIMS = (16, 64, 256, 1024)
METRICS = {"score_std": "score std over positions", "entropy": "attention entropy (nats)",
           "max_weight": "largest weight", "jacobian_norm": "‖∂α/∂e‖_F"}


def measure(score: str, dim: int, seed: int, *, source_length: int = 25,
            queries: int = 512) -> dict[str, float]:
    """One draw: a freshly initialised ``score`` module at dimension ``dim``, ``queries``
    queries each against its own ``source_length`` keys, all components N(0, 1)."""
    module = registry.SCORES[score].module(query_dim=dim, key_dim=dim, attention_dim=dim,
                                           max_length=source_length)
    init_key, query_key, key_key = jax.random.split(jax.random.PRNGKey(seed), 3)
    q = jax.random.normal(query_key, (queries, 1, dim))
    k = jax.random.normal(key_key, (queries, source_length, dim))
    apply = lambda m, q, k: m(q, m.prepare(k))
    params = module.init(init_key, q, k, method=apply)
    e = module.apply(params, q, k, method=apply)[:, 0, :]  # [queries, S]
    alpha = jax.nn.softmax(e, axis=-1)
    jacobian = jax.vmap(jnp.diag)(alpha) - alpha[:, :, None] * alpha[:, None, :]
    entropy = -jnp.sum(alpha * jnp.log(jnp.maximum(alpha, 1e-30)), axis=-1)
    return {"score_std": float(jnp.mean(jnp.std(e, axis=-1))),
            "entropy": float(jnp.mean(entropy)),
            "max_weight": float(jnp.mean(jnp.max(alpha, axis=-1))),
            "jacobian_norm": float(jnp.mean(jnp.sqrt(jnp.sum(jacobian ** 2, axis=(1, 2)))))}


def table(seeds: int = 5, first_seed: int = 0, **kwargs) -> list[dict]:
    """One row per score, dimension and seed (``first_seed`` … ``first_seed + seeds − 1``)."""
    return [{"score": score, "d": dim, "seed": seed, **measure(score, dim, seed, **kwargs)}
            for score, dim, seed in itertools.product(SCORES, DIMS,
                                                      range(first_seed, first_seed + seeds))]


def markdown(rows, source_length: int = 25) -> str:
    header = ["score", "d", "seeds"] + list(METRICS.values())
    lines = []
    for score, dim in itertools.product(SCORES, DIMS):
        cells = [r for r in rows if r["score"] == score and r["d"] == dim]
        lines.append([score, str(dim), str(len(cells))]
                     + [stats.t_interval([r[m] for r in cells]).cell(3) for m in METRICS])
    ratio = {score: np.mean([r["score_std"] for r in rows if r["score"] == score
                             and r["d"] == DIMS[-1]])
             / np.mean([r["score_std"] for r in rows if r["score"] == score and r["d"] == DIMS[0]])
             for score in SCORES}
    return (f"Untrained scores, queries and keys with unit-variance components, {source_length} "
            f"source positions (uniform attention: entropy ln {source_length} = "
            f"{np.log(source_length):.3f} nats, largest weight {1 / source_length:.3f}). Mean "
            "± the half-width of its 95% t interval over seeds (each seed: new parameters and "
            "data, the mean over 512 queries).\n\n" + markdown_table(header, lines)
            + f"\n\nScore std at d = {DIMS[-1]} over d = {DIMS[0]}: "
            + ", ".join(f"{s} {ratio[s]:.2f}×" for s in SCORES)
            + f" (√({DIMS[-1]}/{DIMS[0]}) = {np.sqrt(DIMS[-1] / DIMS[0]):.0f}).\n")


def plot(path, rows):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(METRICS), figsize=(4 * len(METRICS), 3.6))
    for style, score in zip(plotting.series_styles(len(SCORES)), SCORES):
        for ax, metric in zip(axes, METRICS):
            runs = [[r[metric] for r in rows if r["score"] == score and r["d"] == dim]
                    for dim in DIMS]
            plotting.mean_band(ax, DIMS, np.array(runs).T, style, score)
    for ax, (metric, name) in zip(axes, METRICS.items()):
        ax.set(xscale="log", xlabel="d", title=name)
        ax.set_xticks(DIMS, [str(d) for d in DIMS])
    axes[0].set_yscale("log")
    plotting.plain_log_ticks(axes[0])
    plotting.save(fig, path, "score_scaling: untrained scores against d (unit-variance q, k)",
                   axes=tuple(axes), shared_legend=True)


def write(out, seeds: int = 5, first_seed: int = 0):
    """untrained.md, untrained.csv and plots/untrained_statistics.png under ``out``."""
    out = Path(out)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    rows = table(seeds, first_seed)
    command = (f"python -m attention_research.reports.score_statistics --out={out} --seeds={seeds}"
               + (f" --first-seed={first_seed}" if first_seed else ""))
    write_atomically(out / "untrained.md", "# score_scaling: untrained scores\n\n"
                     + markdown(rows) + f"\nCommand: `{command}`\n")
    write_csv(out / "untrained.csv", rows)
    plot(out / "plots" / "untrained_statistics.png", rows)
    return rows


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for untrained.md/.csv and plots/")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0,
                        help="the first seed (a replication uses seeds never used: 100)")
    args = parser.parse_args(argv)
    write(args.out, args.seeds, args.first_seed)
    print((Path(args.out) / "untrained.md").read_text())


if __name__ == "__main__":
    main()
