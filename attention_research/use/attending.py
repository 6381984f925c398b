"""The attention of a trained model for inputs of one's own: the weights it used while
decoding each input, and, teacher-forced on its own output, the implicit map (what the
output's log-probability is sensitive to in the source embeddings, analysis/implicit.py)
and, for a Transformer, every layer's and head's weights and their rollout
(analysis/rollout.py). Written as arrays (``.npz``), heat maps (PNG) and one HTML page
with explicit and implicit attention side by side (reports/attention_page.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import jax
import ml_collections
import numpy as np

from attention_research.analysis import implicit as implicit_methods
from attention_research.reports import heatmaps
from attention_research.reports.attention_page import attention_page
from attention_research.training import held_out
from attention_research.use.predicting import forced_batch, predict

DEFAULT_IMPLICIT = "gradient_x_input"


@dataclass
class Attended:
    prediction: object  # predicting.Prediction
    maps: dict  # {name: array}: 'weights' (decoding), 'implicit', 'rollout', 'heads/<kind>/<layer>'

    @property
    def source(self):
        return self.prediction.source

    @property
    def output(self):
        return self.prediction.hypotheses[0].tokens


def _options(config, method: str):
    options = ml_collections.ConfigDict(config.analysis.to_dict())
    options.implicit = method
    return options


def attend(restored, texts, implicit: str = DEFAULT_IMPLICIT, **decoding) -> list[Attended]:
    """Decode ``texts`` (``predict``'s keywords) and read every map of each best output."""
    if implicit not in implicit_methods.METHODS:
        raise ValueError(f"implicit={implicit!r}: expected one of "
                         f"{', '.join(implicit_methods.METHODS)}")
    predictions = predict(restored, texts, **decoding)
    transformer = restored.config.model.family == "transformer"
    key = ("maps", implicit)
    if key not in restored.compiled:
        options = _options(restored.config, implicit)
        restored.compiled[key] = jax.jit(lambda params, batch: held_out.heatmap_maps(
            restored.model, params, batch, options, transformer))
    maps_of = restored.compiled[key]
    found = []
    for prediction in predictions:
        best = prediction.hypotheses[0]
        maps = {"weights": best.weights}
        if len(best.tokens):
            forced = jax.device_get(maps_of(restored.member_params,
                                            forced_batch(prediction.source, best.tokens)))
            steps = len(best.tokens)  # an output cut at the limit has no EOS to force
            maps.update({name: np.asarray(value)[0][:steps] if name in ("implicit", "rollout")
                         else np.asarray(value)[0] for name, value in forced.items()})
        found.append(Attended(prediction, maps))
    return found


def has_weights(attended: Attended) -> bool:
    """Whether the model recorded attention weights (``none`` and fused attention do not)."""
    return bool(np.any(attended.maps["weights"]))


def write_arrays(path, attended: list[Attended]) -> Path:
    """Every input's tokens and maps in one ``.npz``: '<i>/source', '<i>/output',
    '<i>/weights', '<i>/implicit', … (i from 0, in the order given)."""
    arrays = {}
    for i, a in enumerate(attended):
        arrays[f"{i}/source"], arrays[f"{i}/output"] = a.source, a.output
        arrays.update({f"{i}/{name}": value for name, value in a.maps.items()})
    np.savez(path, **arrays)
    return Path(path)


def write_figures(folder, attended: list[Attended], restored, implicit: str) -> list[Path]:
    """attention.png (the decoding's weights), explicit_vs_implicit.png and, for a
    Transformer, attention_heads_<i>.png (every layer and head of input i, from 0)."""
    folder, labels, written = Path(folder), restored.task.label, []
    title = f"{restored.member_dir.name}: {restored.used}"
    examples = [{"source": a.source, "output": a.output, "weights": a.maps["weights"],
                 "correct": None} for a in attended]
    if any(has_weights(a) for a in attended):
        heatmaps.attention_heatmaps(folder / "attention.png", examples, title, labels=labels)
        written.append(folder / "attention.png")
    side = [{"source": a.source, "target": a.output, "maps": {
        **({"explicit weights": a.maps["weights"]} if has_weights(a) else {}),
        f"implicit ({implicit})": a.maps["implicit"],
        **({"rollout": a.maps["rollout"]} if "rollout" in a.maps else {})}}
        for a in attended if "implicit" in a.maps]
    if side:
        heatmaps.explicit_vs_implicit(folder / "explicit_vs_implicit.png", side, title,
                                      labels=labels, target_name="output")
        written.append(folder / "explicit_vs_implicit.png")
    for i, a in enumerate(attended):
        layers = held_out.head_layers({k: v[None] for k, v in a.maps.items()
                                       if k.startswith("heads/")}, 0)
        if layers:
            path = folder / f"attention_heads_{i}.png"  # i from 0, as the npz and page
            heatmaps.attention_heads(path, a.source, a.output, layers, title, labels=labels,
                                     target_name="output")
            written.append(path)
    return written


def write_page(path, attended: list[Attended], restored, implicit: str) -> Path:
    """The HTML page: hover an output token to see its weights over the source; switch
    between the explicit weights and the implicit map, or see both."""
    label = restored.task.label
    examples = []
    for a in attended:
        maps = {}
        if has_weights(a):
            maps["explicit"] = a.maps["weights"]
        if "implicit" in a.maps:
            maps[f"implicit ({implicit})"] = a.maps["implicit"]
        examples.append({"input": a.prediction.input, "source": [label(t) for t in a.source],
                         "output": [label(t) for t in a.output], "maps": maps})
    note = (f"{restored.member_dir}: {restored.used}. Explicit: the weights the model "
            "computed while decoding. Implicit: the normalised attribution of each output "
            "token's log-probability to the source embeddings, teacher-forced on the "
            "model's own output.")
    Path(path).write_text(attention_page(f"Attention of {restored.member_dir.name}",
                                         examples, note))
    return Path(path)
