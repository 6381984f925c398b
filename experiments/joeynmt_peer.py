"""A speed and quality peer (issue 36): the same RNN trained by JoeyNMT 2.3 (PyTorch)
on the same splits, with the same SentencePiece model, scored exactly as ours.

    # 1. here: the splits as text, our SentencePiece model and vocabulary, and a JoeyNMT
    #    config that mirrors the config given (sizes, attention, dropout, tying, label
    #    smoothing, batch, learning rate, steps as epochs, beam and length penalty)
    python experiments/joeynmt_peer.py prepare --config=configs/additive.py:task=translation \\
        --config.task.data_path=../shared/data/multi30k --out=runs/joeynmt_peer
    # 2. in an environment of its own (JoeyNMT and PyTorch are no dependency of ours;
    #    both install from the package registry), on one core as our runs train:
    python3 -m venv /tmp/joey && /tmp/joey/bin/pip install torch joeynmt==2.3.0 \
        importlib_metadata "sentencepiece<0.2.1"
    taskset -c 0 /tmp/joey/bin/python -m joeynmt train runs/joeynmt_peer/config.yaml --skip-test
    taskset -c 0 /tmp/joey/bin/python -m joeynmt test runs/joeynmt_peer/config.yaml \\
        --output-path runs/joeynmt_peer/hypotheses
    # 3. here: its test translations scored as ours are (restored characters, cased and
    #    lowercased sacreBLEU, chrF), with its training speed from its log
    python experiments/joeynmt_peer.py score --config=configs/additive.py:task=translation \\
        --config.task.data_path=../shared/data/multi30k --out=runs/joeynmt_peer

What differs, and cannot be mirrored: JoeyNMT has no cosine schedule (its warm-up then
inverse square root decay, from our warm-up and peak; its plateau schedule fails with
PyTorch 2.13, which dropped an argument it passes), counts epochs, not steps (the steps
ours trains, as the nearest whole number of epochs), and initialises its own way.
JoeyNMT 2.3 needs ``importlib_metadata`` and a SentencePiece before 0.2.1 (later ones
dropped ``SetVocabulary``), which its package does not pin. The model's sizes, attention (Bahdanau's score over a bidirectional
LSTM, an LSTM decoder with Luong's input feeding), tying, dropout, label smoothing,
batch, peak learning rate, gradient clipping, beam and length penalty are ours.

Cost: JoeyNMT's training took 1:02:13 of wall time on one core of this project's 2-core
CPU, the other core training (results/joeynmt_peer/train_time.txt); ours, the same
steps: results/joeynmt_peer/README.md.

Result: results/joeynmt_peer/README.md (summary_test.md, summary_validation.md).
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from absl import app, flags  # noqa: E402
from ml_collections import config_flags  # noqa: E402

from attention_research.metric_names import TRAIN_TOKENS_PER_S  # noqa: E402


def _define_flags():
    """The command line's flags, defined when run as a script only: findings.py imports
    every experiment file, and absl refuses a flag defined twice."""
    return (config_flags.DEFINE_config_file("config", None, "Our config file[:argument]."),
            flags.DEFINE_string("out", "runs/joeynmt_peer", "The peer's folder."),
            flags.DEFINE_enum("split", "test", ["test", "validation"],
                              "score: the split (JoeyNMT's test mode writes both)."),
            flags.DEFINE_list("ours", [], "score: our members' folders (recorded or run) "
                              "that trained the same config, set beside JoeyNMT."))
SPLITS = {"train": "train", "dev": "validation", "test": "test"}  # JoeyNMT's: ours


def _prepared(config):
    """Our corpus, SentencePiece model and tokenised splits, as our runs build them."""
    from attention_research.tasks.translation import task as translation
    task = config.task
    return translation._prepared(task.dataset, task.data_dir, task.data_path,
                                 task.source_language, task.target_language, "test",
                                 task.vocab_size, 0)


def joeynmt_config(config, out: Path, train_pairs: int, languages) -> str:
    """The YAML of a JoeyNMT 2.3 RNN that mirrors ``config`` (see the docstring)."""
    model, train, task = config.model, config.train, config.task
    source, target = languages
    epochs = max(1, round(train.num_steps * train.batch_size / train_pairs))
    side = lambda lang: f"""        lang: "{lang}"
        level: "bpe"
        lowercase: False
        max_length: {task.length_buckets[-1]}
        voc_file: "{out / 'vocab.txt'}"
        tokenizer_type: "sentencepiece"
        tokenizer_cfg:
            model_file: "{out / 'sentencepiece.model'}"
"""  # noqa: E731
    return f"""name: "joeynmt_peer"
joeynmt_version: "2.3.0"
model_dir: "{out / 'model'}"
use_cuda: False
data:
    train: "{out / 'data' / 'train'}"
    dev: "{out / 'data' / 'dev'}"
    test: "{out / 'data' / 'test'}"
    dataset_type: "plain"
    src:
{side(source)}    trg:
{side(target)}testing:
    n_best: 1
    beam_size: {task.beam_size}
    beam_alpha: {task.length_penalty}
    batch_size: {task.eval_batch_size}
    batch_type: "sentence"
    max_output_length: {task.eval_max_length}
    eval_metrics: ["bleu"]
    sacrebleu_cfg:
        tokenize: "13a"
training:
    random_seed: {config.seed}
    optimizer: "adam"
    learning_rate: {train.learning_rate}
    learning_rate_min: 1.0e-6
    clip_grad_norm: {train.grad_clip_norm}
    batch_size: {train.batch_size}
    batch_type: "sentence"
    scheduling: "warmupinversesquareroot"
    learning_rate_warmup: {train.warmup_steps}
    epochs: {epochs}
    validation_freq: {train.eval_every}
    logging_freq: 100
    early_stopping_metric: "bleu"
    label_smoothing: {train.label_smoothing}
    shuffle: True
    overwrite: True
    keep_best_ckpts: 1
model:
    initializer: "xavier_uniform"
    embed_initializer: "normal"
    embed_init_weight: 0.1
    bias_initializer: "zeros"
    init_rnn_orthogonal: False
    tied_embeddings: {model.tie_embeddings == "all"}
    tied_softmax: {model.tie_embeddings in ("all", "target")}
    encoder:
        type: "recurrent"
        rnn_type: "{model.cell}"
        embeddings:
            embedding_dim: {model.embed_dim}
        hidden_size: {model.hidden_size // 2 if model.bidirectional else model.hidden_size}
        bidirectional: {bool(model.bidirectional)}
        dropout: {model.dropout}
        num_layers: {model.num_layers}
    decoder:
        type: "recurrent"
        rnn_type: "{model.cell}"
        embeddings:
            embedding_dim: {model.embed_dim}
        hidden_size: {model.hidden_size}
        dropout: {model.dropout}
        hidden_dropout: {model.dropout}
        num_layers: {model.num_layers}
        input_feeding: True
        init_hidden: "bridge"
        attention: "bahdanau"
"""


def prepare(config, out: Path):
    from attention_research.tasks.translation import subwords
    corpus, processor, splits = _prepared(config)
    (out / "data").mkdir(parents=True, exist_ok=True)
    languages = (corpus.source_language, corpus.target_language)
    for theirs, ours in SPLITS.items():
        for language, texts in zip(languages, (splits[ours].source_texts,
                                               splits[ours].target_texts)):
            (out / "data" / f"{theirs}.{language}").write_text(
                "".join(t.replace("\n", " ") + "\n" for t in texts))
    shutil.copy(subwords.model_path(corpus.data_dir, config.task.vocab_size, "unigram"),
                out / "sentencepiece.model")
    # One vocabulary, ours (its four specials are JoeyNMT's: <unk> <pad> <s> </s>).
    pieces = [processor.id_to_piece(i) for i in range(processor.get_piece_size())]
    (out / "vocab.txt").write_text("".join(p + "\n" for p in pieces))
    (out / "config.yaml").write_text(joeynmt_config(config, out.resolve(),
                                                    len(splits["train"]), languages))
    print(f"wrote {out}: data/, sentencepiece.model, vocab.txt ({len(pieces)} pieces), "
          f"config.yaml")


def training_speed(log: Path) -> dict:
    """Target tokens per second and wall time from JoeyNMT's train.log."""
    text = log.read_text()
    rates = [float(x) for x in re.findall(r"Tokens per Sec:\s*([\d.]+)", text)]
    return {"target_tokens_per_s_median": statistics.median(rates) if rates else None,
            "logged": len(rates)}


def score(config, out: Path, split: str = "test", ours=()):
    from attention_research.tasks.translation import metrics, subwords
    _, _, splits = _prepared(config)
    theirs = out / f"hypotheses.{'dev' if split == 'validation' else 'test'}"
    hypotheses = theirs.read_text().splitlines()
    references = splits[split].target_texts
    if len(hypotheses) != len(references):
        raise ValueError(f"{theirs} has {len(hypotheses)} lines, the {split} split "
                         f"{len(references)}: not this config's {split} split")
    # Our outputs get the training targets' own characters back before scoring
    # (subwords.restoration); so do JoeyNMT's, which come from the same model.
    hypotheses = subwords.restore(hypotheses, subwords.restoration(splits["train"].target_texts))
    scores = metrics.corpus_scores(hypotheses, references)
    result = {split: scores, **training_speed(out / "model" / "train.log")}
    (out / f"summary_{split}.json").write_text(json.dumps(result, indent=2) + "\n")
    rows = [["JoeyNMT 2.3, seed " + str(config.seed), *(f"{scores[k]:.2f}" for k in
                                                        ("bleu", "bleu_lc", "chrf")),
             f"{result['target_tokens_per_s_median']:.0f} (one model)"
             if result["target_tokens_per_s_median"] else "—"]]
    for folder in map(Path, ours):
        ours = json.loads((folder / "summary.json").read_text())
        final = ours["members"][0]["final"]
        if f"{split}/bleu" not in final:
            raise ValueError(f"{folder} translated no {split} split at the end (its "
                             f"task.eval_split): compare on the split it did")
        rates = [json.loads(line).get(TRAIN_TOKENS_PER_S) for line in
                 (folder / "metrics.jsonl").read_text().splitlines()]
        rates = [r for r in rates if r]
        rows.append([f"ours, {folder.name}", *(f"{final[f'{split}/{k}']:.2f}" for k in
                                               ("bleu", "bleu_lc", "chrf")),
                     f"{statistics.median(rates):.0f} (its cohort's models together)"
                     if rates else "—"])
    from attention_research.reports.tables import markdown_table
    table = markdown_table([f"run ({split})", "BLEU", "lowercased BLEU", "chrF",
                            "target tokens/s, median of the training logs"], rows)
    (out / f"summary_{split}.md").write_text(
        f"# JoeyNMT beside ours on {config.task.dataset} ({split})\n\nWritten by "
        f"`python experiments/joeynmt_peer.py score --split={split}` from JoeyNMT's "
        f"hypotheses and log and our members' summary.json and metrics.jsonl; both scored "
        f"by metrics.corpus_scores.\n\n{table}\n")
    print(json.dumps(result, indent=2))


def main(argv, config_flag, out_flag, split_flag, ours_flag):
    if len(argv) != 2 or argv[1] not in ("prepare", "score"):
        raise app.UsageError("usage: joeynmt_peer.py prepare|score --config=... --out=...")
    out = Path(out_flag.value)
    if argv[1] == "prepare":
        prepare(config_flag.value, out)
    else:
        score(config_flag.value, out, split_flag.value, ours_flag.value)


if __name__ == "__main__":
    defined = _define_flags()
    flags.mark_flag_as_required("config")
    app.run(lambda argv: main(argv, *defined))
