"""Rollout (analysis/rollout.py), agreement and faithfulness (analysis/agreement.py),
and the held-out analysis a run writes (training/held_out.py)."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from attention_research import models
from attention_research.analysis import agreement, rollout
from attention_research.training import held_out
from attention_research.training.config_checks import ConfigError, validate
from attention_research.tasks import get_task
from configs import base, transformer
from tests.conftest import tiny_config


def _rows(rng, shape):
    """Random row-stochastic matrices."""
    w = rng.random(shape).astype(np.float32)
    return jnp.asarray(w / w.sum(-1, keepdims=True))


def test_rollout_of_one_layer_without_the_residual_is_its_weights_and_layers_multiply():
    rng = np.random.default_rng(0)
    first, second = _rows(rng, (2, 4, 4)), _rows(rng, (2, 4, 4))
    np.testing.assert_allclose(rollout.rollout([first], residual=0.0), first)
    eye = np.eye(4)
    expected = np.einsum("bij,bjk->bik", 0.5 * second + 0.5 * eye, 0.5 * first + 0.5 * eye)
    rolled = rollout.rollout([first, second])  # Abnar & Zuidema: 0.5 A + 0.5 I
    np.testing.assert_allclose(rolled, expected, rtol=1e-6)
    np.testing.assert_allclose(rolled.sum(-1), 1.0, rtol=1e-6)


def test_rollout_to_source_composes_the_decoder_with_the_encoders_rollout():
    rng = np.random.default_rng(1)
    encoder = [_rows(rng, (2, 5, 5))]
    decoder_self = [jnp.tril(_rows(rng, (2, 3, 3)))] * 2
    cross = [_rows(rng, (2, 3, 5)), _rows(rng, (2, 3, 5))]
    mapped = np.asarray(rollout.rollout_to_source(encoder, decoder_self, cross))
    np.testing.assert_allclose(mapped.sum(-1), 1.0, rtol=1e-6)
    # By hand, for residual r = 0.5: the source part after each decoder layer.
    r, source_mix = 0.5, np.asarray(rollout.rollout(encoder))
    to_source = np.zeros((2, 3, 5))
    for self_weights, cross_weights in zip(decoder_self, cross):
        mix = r * np.eye(3) + (1 - r) * np.asarray(self_weights)
        to_source = r * np.einsum("btu,bus->bts", mix, to_source) + (1 - r) * np.einsum(
            "bts,bsx->btx", cross_weights, source_mix)
    np.testing.assert_allclose(mapped, to_source / to_source.sum(-1, keepdims=True), rtol=1e-5)
    with pytest.raises(ValueError, match="one decoder self-attention per cross-attention"):
        rollout.rollout_to_source(encoder, decoder_self[:1], cross)


@pytest.mark.slow
def test_rollout_of_a_one_layer_one_head_transformer_is_its_cross_attention():
    """The issue's test: through the one decoder layer to the encoder's outputs, the
    rollout is that layer's weights, the ones the model returns; per-head maps are the
    sown records, [B, h, T, S]."""
    config = transformer.get_config("score=scaled_dot,task=reverse,tiny")
    config.model.update(num_layers=1)
    config.model.attention.num_heads = 1
    task = get_task("reverse")(config)
    model = models.make_model(config, task.vocab_size, task.vocab_size)
    batch = task.eval_set
    params = model.init(jax.random.PRNGKey(0), batch.source, batch.target_inputs)["params"]
    _, weights = model.apply({"params": params}, batch.source, batch.target_inputs)
    layers = rollout.attention_layers(model, params, batch.source, batch.target_inputs)
    assert [len(layers[k]) for k in ("encoder_self", "decoder_self", "cross")] == [1, 1, 1]
    assert layers["cross"][0].shape == weights.shape[:1] + (1,) + weights.shape[1:]
    one_layer = rollout.rollout_to_source([], [w[:, 0] for w in layers["decoder_self"]],
                                          [w[:, 0] for w in layers["cross"]])
    np.testing.assert_allclose(one_layer, weights, rtol=1e-5, atol=1e-6)
    # Through the encoder too: the cross-attention times the encoder's rollout.
    through = rollout.model_rollout(model, params, batch.source, batch.target_inputs)
    expected = jnp.einsum("bts,bsx->btx", weights,
                          rollout.rollout([layers["encoder_self"][0][:, 0]]))
    np.testing.assert_allclose(through, expected, rtol=1e-5, atol=1e-6)


def test_kendall_tau_b_counts_pairs_over_real_positions_and_ties():
    real = jnp.array([[True, True, True, True, False]])
    a = jnp.array([[[1.0, 2.0, 3.0, 4.0, 9.0], [1.0, 2.0, 3.0, 4.0, 9.0],
                    [1.0, 2.0, 3.0, 3.0, 0.0], [5.0, 5.0, 5.0, 5.0, 1.0]]])
    b = jnp.array([[[2.0, 3.0, 4.0, 5.0, 0.0], [4.0, 3.0, 2.0, 1.0, 0.0],
                    [1.0, 2.0, 3.0, 4.0, 0.0], [1.0, 2.0, 3.0, 4.0, 0.0]]])
    tau, defined = agreement.kendall_tau(a, b, real)
    # Same order, reversed, one tie in a (5 of 6 pairs untied: 5 / √(5·6)), a constant.
    np.testing.assert_allclose(tau[0], [1.0, -1.0, 5 / np.sqrt(30), 0.0], rtol=1e-6)
    assert defined.tolist() == [[True, True, True, False]]


def test_argmax_hits_count_only_steps_with_a_true_position():
    maps = jnp.eye(3)[None]  # step t peaks at t
    hits, steps = agreement.argmax_hits(maps, jnp.array([[0, 2, -1]]))
    assert hits.tolist() == [1] and steps.tolist() == [2]


def test_an_all_zero_map_is_a_miss_and_a_tie_counts_where_asked():
    """issue 35: a step whose weights are all 0 (argmax 0) is not a hit at position 0;
    with ``matches``, the argmax on another position holding the same symbol is."""
    maps = jnp.array([[[0.0, 0.0, 0.0], [0.1, 0.2, 0.7], [0.6, 0.3, 0.1]]])
    positions = jnp.array([[0, 0, 0]])
    hits, steps = agreement.argmax_hits(maps, positions)
    assert hits.tolist() == [1] and steps.tolist() == [3]  # step 2 only
    matches = jnp.array([[[True, False, False], [True, False, True], [True, True, False]]])
    hits, _ = agreement.argmax_hits(maps, positions, matches)
    assert hits.tolist() == [2]  # step 1's argmax, 2, holds the symbol too


def test_ablation_drops_are_the_loss_of_zeroing_one_source_token():
    """f_t = 2·x_{t,0}: zeroing position t drops f_t by 2·x_{t,0}; any other, by 0."""
    x = jnp.arange(1.0, 13.0).reshape(1, 4, 3)
    log_probs = lambda x: 2.0 * x[:, :3, 0]
    drops = agreement.ablation_drops(log_probs, x, jnp.array([1]), jnp.array([[1, 3, 0]]))
    np.testing.assert_allclose(drops, [[2.0 * x[0, 1, 0], 0.0, 0.0]])


@pytest.mark.slow
def test_the_stronger_controls_are_the_diagonal_and_a_token_other_than_the_weights():
    """held_out.diagonal: step t on a copy's diagonal is t, and it scales with L/T;
    other_than: every real position but the weights' once over an even grid of draws,
    and none for a one-token source."""
    np.testing.assert_array_equal(
        held_out.diagonal(jnp.array([0, 2, 4, 5]), jnp.array([5, 5, 3, 3]),
                          jnp.array([5, 5, 6, 6])), [0, 2, 2, 2])
    for length in range(2, 9):
        for top in range(length):
            grid = (jnp.arange(length - 1) + 0.5) / (length - 1)
            other, there = held_out.other_than(jnp.full(length - 1, top),
                                               jnp.full(length - 1, length), grid)
            assert sorted(np.asarray(other).tolist()) == [p for p in range(length) if p != top]
            assert np.asarray(there).all()
    _, there = held_out.other_than(jnp.array([0]), jnp.array([1]), jnp.array([0.7]))
    assert not bool(there[0])


def test_the_overlaps_are_shares_of_examples_and_a_nan_drop_is_left_out():
    """evaluation.analysis_metrics: ``overlap_*`` is the share of examples in range
    whose token is the weights' top; ``drop_diagonal_other`` the mean over the examples
    whose diagonal token is not it (NaN there otherwise), NaN where none is left."""
    from attention_research.training.evaluation import ranges as evaluation
    stats = {"overlap_diagonal": np.array([1.0, 0.0, 0.0, 1.0]),
             "drop_diagonal": np.array([3.0, 1.0, 2.0, 5.0]),
             "drop_diagonal_other": np.array([np.nan, 1.0, 2.0, np.nan])}
    metrics = evaluation.analysis_metrics(stats, np.array([2, 2, 3, 3]),
                                          [("all", 0, 9), ("len3", 3, 3), ("len9", 9, 9)])
    assert metrics["eval/overlap_diagonal/all"] == 0.5
    assert metrics["eval/ablation_drop_diagonal/all"] == 2.75
    assert metrics["eval/ablation_drop_diagonal_other/all"] == 1.5
    assert metrics["eval/ablation_drop_diagonal_other/len3"] == 2.0
    assert np.isnan(metrics["eval/overlap_diagonal/len9"])
    assert np.isnan(metrics["eval/ablation_drop_diagonal_other/len9"])


def test_the_implicit_map_at_drawn_steps_is_the_whole_map_at_those_steps():
    """What the metrics read with analysis.target_steps > 0: the whole map's rows at the
    drawn steps, from K backward passes instead of T."""
    config = tiny_config("additive", task="reverse")
    config.analysis.implicit = "gradient_x_input"
    task = get_task("reverse")(config)
    model = models.make_model(config, task.vocab_size, task.vocab_size)
    batch = task.eval_set
    params = model.init(jax.random.PRNGKey(0), batch.source, batch.target_inputs)["params"]
    steps, *_ = held_out.probes(task.eval_lengths, 3)
    read = jax.jit(lambda params, steps: held_out.implicit_map(
        model, params, batch, config.analysis, steps)[0])
    whole, drawn = read(params, None), read(params, steps)
    np.testing.assert_allclose(drawn, np.take_along_axis(np.asarray(whole), steps[..., None], 1),
                               rtol=1e-5, atol=1e-7)
    assert (steps < task.eval_lengths[:, None]).all()  # symbol steps only


def test_bad_analysis_settings_are_refused_with_the_choices():
    config = tiny_config()
    config.analysis.implicit = "lrp"
    with pytest.raises(ConfigError, match="valid choices: gradient, gradient_x_input, "
                                          "integrated_gradients, or '' \\(off\\)"):
        validate(config)
    config.analysis.implicit, config.analysis.steps = "integrated_gradients", 0
    with pytest.raises(ConfigError, match="analysis.steps must be >= 1, got 0"):
        validate(config)
    config = transformer.get_config("score=scaled_dot,task=translation,tiny")
    config.analysis.implicit = "gradient"
    validate(config)  # translation has no known alignment, but τ and the drops
    config.model.fused_attention = True
    with pytest.raises(ConfigError, match="model.fused_attention records none"):
        validate(config)


@pytest.mark.slow
@pytest.mark.parametrize("score, family", [("none", "rnn"), ("scaled_dot", "transformer")])
def test_a_run_with_implicit_analysis_reports_it_and_draws_the_maps_side_by_side(
        tmp_path, score, family):
    """Every metric of the analysis in summary.json, in range; the side-by-side figure.
    ``none`` has implicit attention but no weights, so no τ and no explicit ablation;
    the Transformer adds its rollout."""
    from attention_research.api import train
    config = (tiny_config(score, task="reverse") if family == "rnn"
              else transformer.get_config("score=scaled_dot,task=reverse,tiny"))
    if family == "transformer":
        config.model.num_layers = 2  # a rollout through layers, not tiny's one
    # The Transformer reads whole maps (target_steps 0), the RNN 4 drawn steps each.
    config.analysis.update(implicit="integrated_gradients", steps=4, batch_size=4,
                           target_steps=0 if family == "transformer" else 4)
    train(config, tmp_path)
    final = json.loads((tmp_path / "summary.json").read_text())["members"][0]["final"]
    seen = "len1-4"
    assert 0.0 <= final[f"eval/implicit_align_acc/{seen}"] <= 1.0
    # Beside integrated gradients: the cheaper methods, and any position holding the
    # emitted symbol counted (never below the strict count).
    for method in ("", "_gradient", "_gradient_x_input"):
        strict = final[f"eval/implicit_align_acc{method}/{seen}"]
        assert strict <= final[f"eval/implicit_align_acc_any{method}/{seen}"] <= 1.0
    assert np.isfinite([final[f"eval/ablation_drop_{k}/{seen}"] for k in ("implicit", "random")]).all()
    with_weights = family == "transformer"
    assert (f"eval/implicit_tau/{seen}" in final) == with_weights
    assert (f"eval/ablation_drop_explicit/{seen}" in final) == with_weights
    for control in held_out.CONTROLS:  # one-token sources have no other token: left out
        assert (f"eval/ablation_drop_{control}/{seen}" in final) == with_weights
        assert not with_weights or np.isfinite(final[f"eval/ablation_drop_{control}/{seen}"])
    for name in held_out.OVERLAPS:  # shares of examples whose token is the weights' top
        assert (f"eval/overlap_{name}/{seen}" in final) == with_weights
        assert not with_weights or 0.0 <= final[f"eval/overlap_{name}/{seen}"] <= 1.0
    if with_weights:  # NaN only where every diagonal token is the weights' top
        assert (final[f"eval/overlap_diagonal/{seen}"] == 1.0) == np.isnan(
            final[f"eval/ablation_drop_diagonal_other/{seen}"])
    assert (f"eval/rollout_align_acc/{seen}" in final) == with_weights
    if with_weights:
        assert -1.0 <= final[f"eval/implicit_tau/{seen}"] <= 1.0
    assert (tmp_path / "plots" / "explicit_vs_implicit.png").stat().st_size > 0
    # Every head of every layer (per-layer, per-head maps): the Transformer's alone.
    assert (tmp_path / "plots" / "attention_heads.png").exists() == with_weights


@pytest.mark.slow
def test_the_sweep_report_tables_the_analysis_and_tests_explicit_against_random_drops():
    from attention_research.reports import tables
    seen = "len1-4"
    rows = [{"setting": "additive", "status": "finished", f"align_acc/{seen}": 1.0,
             f"implicit_align_acc/{seen}": 0.7 + 0.01 * seed, f"implicit_tau/{seen}": 0.3,
             f"ablation_drop_explicit/{seen}": 6.0 + 0.1 * seed,
             f"ablation_drop_implicit/{seen}": 5.0, f"ablation_drop_random/{seen}": 1.0 + 0.1 * seed}
            for seed in range(3)]
    rows += [{"setting": "none", "status": "finished", f"implicit_align_acc/{seen}": 0.2,
              f"ablation_drop_implicit/{seen}": 1.0, f"ablation_drop_random/{seen}": 0.5}]
    section = tables.analysis_section(rows, ["additive", "none"], seen)
    assert "## Explicit and implicit attention" in section
    assert "| additive | 3 | 1.000 ± 0.000 | 0.710 ± 0.025 |" in section
    assert "**explicit argmax**" in section  # 6.1 vs 1.1 nats, separated over 3 seeds
    assert "| none | 1 | — | 0.200 |" in section and "— (no weights)" in section
    assert tables.analysis_section([{"setting": "x", "status": "finished"}], ["x"], seen) == ""
