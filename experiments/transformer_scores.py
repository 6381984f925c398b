"""The Transformer with scaled_dot (Vaswani et al. 2017) vs additive vs dot scores in
every self- and cross-attention, on reverse: lengths 1-25 seen in training, 26-50 longer.

    python experiments/transformer_scores.py
"""

from _common import Run, execute, write_results


def main():
    runs = [execute(Run(score, f"configs/transformer.py:score={score}"), "transformer_scores")
            for score in ("scaled_dot", "additive", "dot")]
    write_results("transformer_scores", "Transformer scores on reverse", runs,
                  script="experiments/transformer_scores.py")


if __name__ == "__main__":
    main()
