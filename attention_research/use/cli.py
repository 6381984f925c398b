"""``python -m attention_research.use``: a trained run's model on inputs of one's own.

    python -m attention_research.use predict runs/additive "3 1 4 1 5"
    python -m attention_research.use predict runs/multi30k --input=sentences.de --beam=4
    python -m attention_research.use attention runs/additive "3 1 4 1 5" --out=attention/
    python -m attention_research.use evaluate runs/multi30k --split=test2017

Inputs come from the arguments, from ``--input=FILE`` (one a line), or from stdin.
Outputs go to stdout, one a line (with ``--n_best``: input number, score, output, tab
separated); which checkpoint was used goes to stderr. The work directory is only read.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from attention_research.errors import explain


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m attention_research.use",
                                     description=__doc__.split("\n\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("workdir", help="the --workdir a run or sweep was trained in")
    common.add_argument("--member", help="a sweep's member: its name, or a part only it holds")
    common.add_argument("--step", type=int, help="use checkpoint N's own parameters (default: "
                        "those the run's final evaluation uses)")
    common.add_argument("--beam", type=int, help="beam size (default: the run's final "
                        "evaluation's; 1 is greedy)")
    common.add_argument("--length_penalty", type=float, help="GNMT's alpha (default: the run's)")
    common.add_argument("--verbose", action="store_true", help="full tracebacks on errors")
    inputs = argparse.ArgumentParser(add_help=False)
    inputs.add_argument("inputs", nargs="*", help="inputs (sentences, or symbols such as "
                        "'3 1 4'); none: read --input or stdin")
    inputs.add_argument("--input", help="a file of inputs, one a line (UTF-8)")
    inputs.add_argument("--batch_size", type=int, default=64, help="inputs decoded at once")
    predict = verbs.add_parser("predict", parents=[common, inputs],
                               help="print the model's output for each input")
    predict.add_argument("--n_best", type=int, default=1, help="print the N best hypotheses "
                         "of beam search (N <= --beam)")
    attention = verbs.add_parser("attention", parents=[common, inputs],
                                 help="write heat maps, arrays and an HTML page of the "
                                 "attention for each input")
    attention.add_argument("--out", default="attention", help="the folder to write into "
                           "(outside the work directory)")
    attention.add_argument("--implicit", default="gradient_x_input",
                           choices=("gradient", "gradient_x_input", "integrated_gradients"),
                           help="the implicit attention shown beside the explicit weights")
    evaluate = verbs.add_parser("evaluate", parents=[common],
                                help="score a checkpoint as the run scores its test split")
    evaluate.add_argument("--split", help="a split of the run's corpus (default: its test split)")
    evaluate.add_argument("--source", help="a file of source sentences, one a line")
    evaluate.add_argument("--reference", help="their references, one a line")
    evaluate.add_argument("--lengths", help="symbol tasks: FIRST-LAST (default: the run's "
                          "held-out lengths)")
    evaluate.add_argument("--eval_seed", type=int, help="symbol tasks: a fresh held-out set "
                          "of the same sizes, drawn from this seed (default: the run's own set)")
    evaluate.add_argument("--hypotheses", help="also write the outputs here, one a line")
    return parser


def _texts(args) -> tuple[list[str], object]:
    """The inputs, and how to name input i in an error."""
    from attention_research.tasks.translation.plain_text import read_lines
    if args.inputs and args.input:
        raise SystemExit("error: give inputs as arguments or with --input, not both")
    if args.inputs:
        return list(args.inputs), None
    if args.input:
        return read_lines(args.input), lambda i: f"{args.input} line {i + 1}"
    if sys.stdin.isatty():
        print("reading inputs from stdin, one a line (Ctrl-D to end)", file=sys.stderr)
    # Every line, empty ones too: each is refused by its number rather than dropped, so
    # that outputs line up with inputs (empty lines were skipped silently).
    return [line.rstrip("\n").removesuffix("\r") for line in sys.stdin], \
        lambda i: f"stdin line {i + 1}"


def _inside(path: Path, folder: Path) -> bool:
    path, folder = path.resolve(), folder.resolve()
    return path == folder or folder in path.parents


def run(args) -> None:
    from attention_research.use.loading import describe_source
    from attention_research.use.trained import load, write_all
    started = time.time()
    trained = load(args.workdir, args.member, args.step)
    print(f"using {describe_source(trained.restored)}", file=sys.stderr)
    if args.verb == "evaluate":
        lengths = None
        if args.lengths:
            first, _, last = args.lengths.partition("-")
            if not (first.isdigit() and last.isdigit()):
                raise SystemExit(f"error: --lengths={args.lengths!r}: expected FIRST-LAST, "
                                 "e.g. 1-50")
            lengths = (int(first), int(last))
        result = trained.evaluate(args.split, args.source, args.reference, lengths,
                                  args.beam, args.length_penalty, args.eval_seed)
        hypotheses = result.pop("hypotheses", None)
        if args.hypotheses and hypotheses is not None:
            Path(args.hypotheses).write_text("".join(f"{h}\n" for h in hypotheses))
        print(json.dumps(result, indent=1))
        return
    texts, where = _texts(args)
    if args.verb == "predict":
        predictions = trained.predict(texts, args.beam, args.length_penalty, args.n_best,
                                      args.batch_size) if not where else \
            _predict_named(trained, texts, where, args)
        for i, prediction in enumerate(predictions):
            if args.n_best > 1:
                for h in prediction.hypotheses:
                    print(f"{i + 1}\t{h.score:.4f}\t{h.text}")
            else:
                print(prediction.text)
        seconds = time.time() - started
        print(f"{len(texts)} input(s) in {seconds:.1f} s", file=sys.stderr)
        return
    out = Path(args.out)
    if _inside(out, Path(args.workdir)):
        raise SystemExit(f"error: --out={out} lies inside the work directory, which is only "
                         "read: pass a folder outside it")
    attended = trained.attention(texts, args.implicit, beam_size=args.beam,
                                 length_penalty=args.length_penalty)
    for a in attended:
        print(a.prediction.text)
    for path in write_all(out, attended, trained.restored, args.implicit):
        print(f"wrote {path}", file=sys.stderr)


def _predict_named(trained, texts, where, args):
    from attention_research.use import predicting
    return predicting.predict(trained.restored, texts, n_best=args.n_best,
                              batch_size=args.batch_size, where=where,
                              **trained._decoding(args.beam, args.length_penalty))


def parse(argv=None):
    """The arguments; inputs may stand before or after the options (argparse alone stops
    collecting them at the first option: ``predict W --member=m "1 2" "3"``)."""
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra and (getattr(args, "inputs", None) is None
                  or any(item.startswith("-") and item != "-" for item in extra)):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if extra:
        args.inputs = [*args.inputs, *extra]
    return args


def main(argv=None) -> None:
    args = parse(argv)
    import logging

    from attention_research.running import compilation_cache
    logging.getLogger("absl").setLevel(logging.ERROR)  # orbax's read-only notices
    # The decoders compile once per batch shape; the cache launch.py uses keeps them for
    # the next command ($ATTENTION_RESEARCH_COMPILATION_CACHE, else ~/.cache/...).
    compilation_cache.enable(None)
    try:
        run(args)
    except (KeyboardInterrupt, BrokenPipeError):
        raise SystemExit(130)
    except Exception as error:  # noqa: BLE001 — one line, as launch.py gives it
        if args.verbose:
            raise
        raise SystemExit(f"error: {explain(error)}") from None
