"""One self-contained HTML page of a batch's attention: for each input, its source and
output tokens; hovering (or tapping) an output token shades the source tokens by that
step's weights, and a switch shows the explicit weights, the implicit map (gradient ×
input or integrated gradients, analysis/implicit.py) or both side by side, for the
same input. No script or style is fetched from anywhere: the page opens offline. A link
to ``attention.html#0:3`` opens it with example 0's output step 3 shown
(``#0:3:side by side`` in that mode)."""

from __future__ import annotations

import html
import json

import numpy as np

_STYLE = """
body{font:15px/1.5 system-ui,sans-serif;margin:2em;max-width:70em}
.example{border-top:1px solid #ccc;padding:1em 0}
.row{margin:.3em 0}.row b{display:inline-block;width:6em;color:#555}
.tok{display:inline-block;padding:.1em .3em;margin:.1em;border-radius:3px;
     border:1px solid #ddd;cursor:default}
.out .tok:hover,.out .tok.on{outline:2px solid #d62728}
.panel{display:inline-block;vertical-align:top;margin-right:2em}
.panel h4{margin:.2em 0;font-weight:normal;color:#555}
#switch button{margin-right:.5em}#switch button.on{font-weight:bold}
"""

_SCRIPT = """
const data = JSON.parse(document.getElementById('data').textContent);
let mode = data.modes[0];
function shade(example, step) {
  document.querySelectorAll(`[data-example="${example}"] .src`).forEach(panel => {
    const map = data.examples[example].maps[panel.dataset.map];
    panel.querySelectorAll('.tok').forEach((tok, s) => {
      const w = step === null || !map ? 0 : map[step][s];
      tok.style.background = `rgba(31,119,180,${w})`;
      tok.style.color = w > 0.6 ? 'white' : 'black';
      tok.title = step === null ? '' : w.toFixed(3);
    });
  });
}
function show(next) {
  mode = next;
  document.querySelectorAll('#switch button').forEach(b =>
    b.classList.toggle('on', b.dataset.mode === mode));
  document.querySelectorAll('.panel').forEach(p =>
    p.style.display = (mode === 'side by side' || p.dataset.map === mode) ? '' : 'none');
}
document.querySelectorAll('.out .tok').forEach(tok => {
  const example = tok.closest('.example').dataset.example;
  const enter = () => { tok.classList.add('on'); shade(example, +tok.dataset.step); };
  const leave = () => { tok.classList.remove('on'); shade(example, null); };
  tok.addEventListener('mouseenter', enter); tok.addEventListener('mouseleave', leave);
  tok.addEventListener('click', enter);
});
document.querySelectorAll('#switch button').forEach(b =>
  b.addEventListener('click', () => show(b.dataset.mode)));
// A link may name what to show: #EXAMPLE:STEP[:MODE], e.g. #0:3:side%20by%20side.
const [example, step, named] = decodeURIComponent(location.hash.slice(1)).split(':');
show(data.modes.find(m => named && m.startsWith(named)) || mode);  // 'implicit' will do
const chosen = document.querySelector(
  `[data-example="${example}"] .out .tok[data-step="${step}"]`);
if (chosen) { chosen.classList.add('on'); shade(example, +step); }
"""


def _tokens(labels, kind: str, extra: str = "") -> str:
    return "".join(f'<span class="tok" {extra.format(i=i)}>{html.escape(label)}</span>'
                   for i, label in enumerate(labels))


def attention_page(title: str, examples: list[dict], note: str = "") -> str:
    """The page. ``examples``: dicts with 'input' (text), 'source' and 'output' (token
    labels) and 'maps' ({name: [len(output), len(source)] weights}, e.g. 'explicit',
    'implicit (gradient_x_input)'); every example has the same map names."""
    modes = list(examples[0]["maps"]) if examples else []
    if len(modes) > 1:
        modes.append("side by side")
    data = {"modes": modes, "examples": [
        {"maps": {name: np.round(np.asarray(m, float), 4).tolist()
                  for name, m in e["maps"].items()}} for e in examples]}
    payload = json.dumps(data).replace("</", "<\\/")  # no '</script>' inside the data
    switch = "".join(f'<button data-mode="{html.escape(m)}">{html.escape(m)}</button>'
                     for m in modes)
    parts = []
    for j, e in enumerate(examples):
        panels = "".join(
            f'<div class="panel src" data-map="{html.escape(name)}"><h4>{html.escape(name)}'
            f'</h4>{_tokens(e["source"], "src")}</div>' for name in e["maps"])
        parts.append(
            f'<div class="example" data-example="{j}"><div class="row"><b>input</b>'
            f'{html.escape(e["input"])}</div><div class="row"><b>source</b>{panels}</div>'
            f'<div class="row out"><b>output</b>'
            f'{_tokens(e["output"], "out", "data-step={i}")}</div></div>')
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{_STYLE}</style></head><body><h2>{html.escape(title)}</h2>"
            f"<p>{html.escape(note)}</p><p>Hover over an output token: the source tokens are "
            f"shaded by the weight that step gives them.</p><div id='switch'>{switch}</div>"
            + "".join(parts)
            + f"<script type='application/json' id='data'>{payload}</script>"
            f"<script>{_SCRIPT}</script></body></html>")
