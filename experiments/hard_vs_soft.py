"""Stochastic hard attention (Xu et al. 2015, REINFORCE) against soft global attention,
same additive score and model, on copy and reverse: learning curves side by side.

    python experiments/hard_vs_soft.py
"""

from _common import Run, execute, write_results


def main():
    for task in ("copy", "reverse"):
        runs = [execute(Run(f"{name}_{task}", f"configs/{config}.py:task={task}"),
                        "hard_vs_soft") for name, config in [("soft", "additive"),
                                                             ("hard", "hard")]]
        write_results(f"hard_vs_soft/{task}", f"Hard (REINFORCE) vs soft attention on {task}",
                      runs, script="experiments/hard_vs_soft.py")


if __name__ == "__main__":
    main()
