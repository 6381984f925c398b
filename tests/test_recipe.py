"""What the toolkits offer for small data, each on its own: label smoothing, tied
embeddings, token dropout, subword sampling, token-based batches, the best checkpoint
and checkpoint averaging."""

import jax
import numpy as np
import pytest

from attention_research.training.steps import token_losses
from experiments.lab import recipes


def test_label_smoothing_is_the_cross_entropy_against_the_smoothed_target():
    rng = np.random.default_rng(0)
    vocab, epsilon = 7, 0.1
    logits = rng.normal(size=(2, 3, vocab)).astype(np.float32)
    targets = np.array([[4, 5, 0], [6, 3, 2]])
    got, nll, _, _ = map(np.asarray, token_losses(logits, targets, epsilon))
    # By hand: q = (1 - eps) onehot(y) + eps / V, loss = -sum_k q_k log p_k.
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    q = (1 - epsilon) * np.eye(vocab)[targets] + epsilon / vocab
    np.testing.assert_allclose(got, -(q * log_p).sum(-1), rtol=1e-5)
    np.testing.assert_allclose(nll, -log_p[np.arange(2)[:, None], np.arange(3), targets],
                               rtol=1e-5)
    # ε = 0: the fitted loss is the NLL itself, and the NLL is the same either way.
    unsmoothed, plain_nll, _, _ = map(np.asarray, token_losses(logits, targets, 0.0))
    assert np.array_equal(unsmoothed, plain_nll)
    np.testing.assert_allclose(plain_nll, nll, rtol=1e-6)


def test_a_correct_token_is_the_argmax_and_padding_is_never_correct():
    """token_losses reads correctness from the max the softmax computes, not an argmax
    of its own: the same answer wherever the largest logit is unique."""
    from attention_research.data import PAD
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(4, 9, 11)).astype(np.float32)
    targets = rng.integers(0, 11, size=(4, 9))
    targets[:, :3] = logits[:, :3].argmax(-1)  # some right, the rest mostly wrong
    targets[0, -2:] = PAD
    for epsilon in (0.0, 0.1):
        _, _, correct, real = map(np.asarray, token_losses(logits, targets, epsilon))
        expected = (logits.argmax(-1) == targets) & (targets != PAD)
        assert np.array_equal(correct, expected) and expected.sum() >= 12
        assert np.array_equal(real, targets != PAD)


def test_label_smoothing_changes_what_is_fitted_but_not_the_reported_loss():
    from attention_research import models
    from attention_research.attention import training_signal
    from attention_research.tasks import get_task
    from attention_research.training.steps import make_loss
    from tests.conftest import tiny_config
    config = tiny_config()
    task = get_task("copy")(config)
    batch = task.sample_batch(jax.random.PRNGKey(3))
    model = models.make_model(config, task.vocab_size, task.vocab_size)
    params = model.init(jax.random.PRNGKey(0), batch.source, batch.target_inputs)["params"]
    signal = training_signal(config.model.attention)
    plain, (nll, *_) = jax.jit(make_loss(model, signal))(params, batch, {}, {})
    smoothed, (same_nll, *_) = jax.jit(make_loss(model, signal, 0.2))(params, batch, {}, {})
    assert float(plain) == pytest.approx(float(nll)) == pytest.approx(float(same_nll))
    assert float(smoothed) != pytest.approx(float(plain))


def _init(config, vocab=12):
    from attention_research import data, models
    model = models.make_model(config, vocab, vocab)
    source = np.array([[5, 6, 7, data.PAD]])
    inputs = np.array([[data.BOS, 7, 6, 5]])
    return model, model.init(jax.random.PRNGKey(0), source, inputs)["params"], source, inputs


@pytest.mark.slow
@pytest.mark.parametrize("family", ["rnn", "transformer"])
def test_tied_embeddings_are_one_array(family):
    """target: the output projection reads the target embedding's matrix; all: the
    source embedding is that matrix too. The logits move when it moves."""
    from tests.conftest import tiny_config
    config = tiny_config()
    if family == "transformer":
        config.model.family = "transformer"
        config.model.attention.score = "scaled_dot"
    for tie, tables in (("none", {"source_embed", "target_embed"}),
                        ("target", {"source_embed", "target_embed"}),
                        ("all", {"shared_embed"})):
        config.model.tie_embeddings = tie
        model, params, source, inputs = _init(config)
        assert {k for k in params if k.endswith("_embed")} == tables
        readout = set(params["readout"])
        assert readout == ({"kernel", "bias"} if tie == "none" else {"bias"} | (
            {"project"} if family == "rnn" and config.model.embed_dim !=
            config.model.hidden_size else set()))
    # Tied: a change to the one matrix changes the readout's logits for a fixed state.
    config.model.tie_embeddings = "all"
    model, params, source, inputs = _init(config)
    logits, _ = model.apply({"params": params}, source, inputs)
    embed = params["shared_embed"]["embedding"]
    push = jax.random.normal(jax.random.PRNGKey(1), embed.shape[1:])
    moved = {**params, "shared_embed": {"embedding": embed.at[5].add(push)}}
    moved_logits, _ = model.apply({"params": moved}, source, inputs)
    assert not np.allclose(logits[..., 5], moved_logits[..., 5])
    with pytest.raises(ValueError, match="vocabularies must be one"):
        from attention_research import models
        bad = models.make_model(config, 12, 13)
        bad.init(jax.random.PRNGKey(0), source, inputs)


@pytest.mark.slow
@pytest.mark.parametrize("family", ["rnn", "transformer"])
def test_token_dropout_zeroes_whole_tokens_in_training_only(family):
    from tests.conftest import tiny_config
    config = tiny_config()
    if family == "transformer":
        config.model.family = "transformer"
        config.model.attention.score = "scaled_dot"
    config.model.token_dropout = 0.5
    model, params, source, inputs = _init(config)
    plain = model.apply({"params": params}, source, inputs)[0]
    assert np.array_equal(plain, model.apply({"params": params}, source, inputs)[0])
    dropped = model.apply({"params": params}, source, inputs, train=True,
                          rngs={"dropout": jax.random.PRNGKey(1)})[0]
    assert not np.allclose(plain, dropped)
    # The mask is per token: an embedding is kept whole or zeroed whole.
    from attention_research.models.embeddings import token_dropout
    x = np.ones((1, 200, 8), np.float32)
    y = np.asarray(token_dropout(0.5).apply({}, x, deterministic=False,
                                            rngs={"dropout": jax.random.PRNGKey(2)}))
    per_token = y[0]
    assert set(np.unique(per_token)) <= {0.0, 2.0}
    assert np.all(per_token.min(-1) == per_token.max(-1))
    assert 60 < (per_token[:, 0] == 0).sum() < 140


def _evaluations(workdir, metric):
    import json
    from pathlib import Path
    rows = [json.loads(line) for line in Path(workdir, "metrics.jsonl").read_text().splitlines()]
    return {r["step"]: r[metric] for r in rows if metric in r}


@pytest.mark.slow
def test_the_best_checkpoint_is_the_one_evaluated(tmp_path):
    """best_metric: the final evaluation uses the parameters of the best logged
    evaluation, so its held-out metrics are exactly that evaluation's."""
    from attention_research.api import train
    from tests.conftest import tiny_config
    config = tiny_config()
    config.train.update(num_steps=40, eval_every=10, checkpoint_every=20,
                        best_metric="eval/loss/len5-6")
    summary = train(config, tmp_path / "run", progress=False)
    losses = _evaluations(tmp_path / "run", "eval/loss/len5-6")
    best_step = min(losses, key=losses.get)
    member = summary["members"][0]
    assert member["selected"] == {"metric": "eval/loss/len5-6", "step": best_step,
                                  "value": pytest.approx(losses[best_step])}
    assert member["final"]["eval/loss/len5-6"] == pytest.approx(losses[best_step], rel=1e-6)
    if best_step != 40:  # the last evaluation is not what was kept
        assert member["final"]["eval/loss/len5-6"] != pytest.approx(losses[40], rel=1e-6)


@pytest.mark.slow
def test_early_stopping_stops_and_stays_stopped(tmp_path):
    """No improvement for `patience` evaluations: training stops there, and a rerun on
    the same directory resumes into the same stop."""
    from attention_research.api import train
    from tests.conftest import tiny_config
    config = tiny_config()
    config.train.update(num_steps=40, eval_every=10, checkpoint_every=20, eval_at_start=True,
                        learning_rate=1e-12, best_metric="eval/seq_acc/len1-4", patience=1)
    summary = train(config, tmp_path / "run", progress=False)
    assert summary["steps"] == 10 and summary["stopped_early"]
    assert summary["members"][0]["selected"]["step"] == 0
    again = train(config, tmp_path / "run", progress=False)
    assert again["steps"] == 10 and again["members"][0]["final"] == \
        summary["members"][0]["final"]


@pytest.mark.slow
def test_checkpoint_averaging_takes_the_mean_of_the_last_checkpoints(tmp_path):
    import jax.numpy as jnp
    from attention_research.running.checkpoints import Checkpoints
    from attention_research.training.selection import average_parameters
    from attention_research.training.state import TrainState
    def state(value):
        return TrainState(step=jnp.array([value], jnp.int32),
                          params={"w": jnp.full((1, 3), float(value))}, opt_state=(),
                          seed=jnp.array([0]), signal_state={},
                          failed_step=jnp.array([0]), failure=jnp.array([0]))
    checkpoints = Checkpoints(tmp_path / "checkpoints", max_to_keep=3)
    for step in (10, 20, 30):
        checkpoints.save(step, state(step))
        checkpoints.check()
    params, steps = average_parameters(checkpoints, state(0), 2)
    checkpoints.close()
    assert steps == [20, 30]
    np.testing.assert_allclose(np.asarray(params["w"]), 25.0)


def test_bad_selection_settings_are_refused_with_the_choices():
    from attention_research.training.config_checks import ConfigError, validate
    from tests.conftest import tiny_config
    for fields, message in (({"best_metric": "eval/bleu/validation"}, "valid choices: eval/"),
                            ({"patience": 2}, "set train.best_metric too"),
                            ({"average_last": 9}, r"must be in \[0, 2\]"),
                            ({"average_last": 2, "best_metric": "eval/loss/len1-4"},
                             "set one of them")):
        config = tiny_config()
        config.train.update(**fields)
        with pytest.raises(ConfigError, match=message):
            validate(config)


def test_the_translation_default_is_the_setting_the_recipe_sweep_chose(tmp_path):
    """The recipe named translation_recipe, on the corpus it was tuned on (ding_de_en;
    the default corpus is multi30k since), is translation_recipe's smooth_tie member (the
    best mean validation BLEU, seed 0), apart from what tuning alone sets: its name and
    the validation split; the first recipe is what that sweep's baseline trains."""
    import json
    from attention_research.running import sweeps
    from attention_research.tasks.translation.task import Translation
    from configs import base
    from experiments import translation_recipe as recipe
    members = sweeps.expand(recipe.get_config(), recipe.get_sweep(), tmp_path)
    name = sweeps.member_name({**recipe.SETTINGS["smooth_tie"], "config.seed": 0})
    chosen = next(m.config for m in members if m.name == name)
    default = recipes.use_recipe(
        Translation.use_corpus(base.get_config("task=translation"), "ding_de_en"),
        "translation_recipe")
    tuned = lambda c: {**json.loads(c.to_json()), "name": "", "task": {
        **json.loads(c.task.to_json()), "eval_split": ""}}
    assert tuned(default) == tuned(chosen)
    baseline = next(m.config for m in members if m.name == "seed-0")
    first = recipes.use_first_recipe(
        Translation.use_corpus(base.get_config("task=translation"), "ding_de_en"))
    first.train.update(num_steps=8000, eval_every=500, best_metric="eval/bleu/validation")
    assert tuned(first) == tuned(baseline)


@pytest.mark.slow
def test_the_experiments_that_compare_the_defaults_train_them(tmp_path):
    """translation_recipe's finding compares the tuned default with the first on test
    BLEU through two experiments' additive members: luong_table4's is the tuned default
    (configs/additive.py:task=translation) and explicit_vs_implicit:task=translation's
    the first, apart from their names, the baseline a sweep's report reads against (no
    training field) and, for the second, the analysis it adds; both on ding_de_en, the
    default corpus when they were recorded."""
    import json
    from attention_research.running import sweeps
    from attention_research.tasks.translation.task import Translation
    from configs import additive
    from experiments import explicit_vs_implicit, luong_table4
    from experiments import translation_recipe as recipe

    def member(module, arg, setting):
        args = () if arg is None else (arg,)
        members = sweeps.expand(module.get_config(*args), module.get_sweep(*args), tmp_path)
        return next(m.config for m in members if m.name == f"{setting}_seed-0")

    plain = lambda c: {**json.loads(c.to_json()), "name": "", "baseline": "", "analysis": None}
    tuned = member(luong_table4, None, recipe.TUNED_DEFAULT[1])
    default = recipes.use_recipe(
        Translation.use_corpus(additive.get_config("task=translation"), "ding_de_en"),
        "translation_recipe")
    assert plain(tuned) == plain(default)
    assert tuned.analysis.to_json() == default.analysis.to_json()
    first = member(explicit_vs_implicit, "task=translation", recipe.FIRST_DEFAULT[1])
    assert plain(first) == plain(recipes.use_first_recipe(default))


def test_recorded_experiments_pin_their_recipe_and_do_not_follow_the_defaults(
        tmp_path, monkeypatch):
    """When the translation defaults move to another recipe, the experiments recorded
    with an earlier one train what they report: every member of theirs is unchanged.
    Those that run at today's defaults (translation_length, multi30k_goals, luong_table4
    and explicit_vs_implicit on Multi30k) follow, their Transformer included."""
    import importlib
    import json
    from attention_research.running import sweeps
    from attention_research.errors import ConfigError
    from attention_research.tasks.translation import task
    from experiments import (explicit_vs_implicit, luong_table4, multi30k_goals,
                             multi30k_recipe, translation_de_en, translation_length,
                             translation_recipe)
    pinned = [(luong_table4, None), (explicit_vs_implicit, "task=translation"),
              (translation_de_en, None), (translation_recipe, None), (multi30k_recipe, None)]
    following = [(translation_length, None), (multi30k_goals, None),
                 (luong_table4, "corpus=multi30k"),
                 (explicit_vs_implicit, "task=translation,corpus=multi30k")]

    def members(module, arg):
        args = () if arg is None else (arg,)
        importlib.reload(module)  # module-level settings read the defaults on import
        return {m.name: json.loads(m.config.to_json()) for m in sweeps.expand(
            module.get_config(*args), module.get_sweep(*args), tmp_path / module.__name__)}
    before = {(m.__name__, a): members(m, a) for m, a in pinned + following}
    probe = {**task.DEFAULTS, "model.embed_dim": 96,
             "transformer": {"model.ff_dim": 384, "model.dropout": 0.1},
             "rnn": {"model.dropout": 0.2}}
    monkeypatch.setattr(task, "DEFAULTS", probe)
    try:
        for module, arg in pinned:
            assert members(module, arg) == before[(module.__name__, arg)], module.__name__
        for module, arg in following:
            moved = members(module, arg)
            assert all(c["model"]["embed_dim"] == 96 for c in moved.values()), module.__name__
        # The Transformer of translation_length is the default one, its ff_dim included.
        assert any("ff_dim-384" in name for name in members(translation_length, None))
    finally:
        monkeypatch.undo()
        for module, _ in pinned + following:
            importlib.reload(module)
    with pytest.raises(ConfigError, match="unknown translation recipe 'nope'; the recipes "
                                          "are: translation_recipe"):
        recipes.use_recipe(translation_recipe.get_config(), "nope")


def test_the_multi30k_defaults_are_what_multi30k_recipe_chose(tmp_path):
    """Once multi30k_recipe's record holds every seed of a model family, that family's
    translation defaults are its choice (``multi30k_recipe.choice``): the goal runs,
    which train the defaults, train the chosen member's config but for what tuning
    alone sets (name, the validation split) and the goal runs' cohort size. Until a
    family is complete there is nothing to hold it to; recording its last member
    without moving the defaults fails here."""
    import json
    from pathlib import Path
    from attention_research.running import sweeps
    from experiments import multi30k_goals as goals
    from experiments import multi30k_recipe as recipe
    record = Path(__file__).resolve().parents[1] / "experiments" / "results" / "multi30k_recipe"
    chosen = recipe.choice(record)
    plain = lambda c: {**json.loads(c.to_json()), "name": "", "max_cohort_members": 0,
                       "task": {**json.loads(c.task.to_json()), "eval_split": ""}}
    goal_members = sweeps.expand(goals.get_config(), goals.get_sweep(), tmp_path / "goals")
    for family, (name, _) in chosen.items():
        tuned = next(m.config for m in sweeps.expand(
            recipe.get_config(), [{**recipe.SETTINGS[name], "config.seed": 0}], tmp_path / name))
        default = next(m.config for m in goal_members
                       if m.config.seed == 0 and (m.config.model.family == "transformer")
                       == (family == "transformer"))
        assert plain(default) == plain(tuned), family
