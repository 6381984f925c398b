"""Local attention on reverse with sources longer than 2D (Luong et al. 2015, §3.2).

local_m centres its window at p_t = t, which follows copy's diagonal but not
reverse's anti-diagonal: once a source is longer than about 2D + 1 the right
position leaves the window at some steps. local_p predicts p_t from the decoder
state and can follow it. Global attention is the reference. Trained and
evaluated on lengths 1-50 with D = 10.

    python experiments/local_attention.py
"""

from _common import Run, execute, write_results

LONG = {"task.train_max_length": 50, "task.eval_max_length": 60, "train.num_steps": 3000}


def main():
    runs = [execute(Run(name, f"configs/{config}.py:task=reverse", dict(LONG)),
                    "local_attention")
            for name, config in [("global", "additive"), ("local_m", "local_m"),
                                 ("local_p", "local_p")]]
    write_results("local_attention", "Global vs local-m vs local-p on reverse, lengths 1-50, "
                  "D = 10", runs, script="experiments/local_attention.py")


if __name__ == "__main__":
    main()
