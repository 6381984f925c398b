"""Every RNN formulation config on copy and reverse, defaults, one seed: a smoke check
and first look, not a verdict (the seeded comparison is issue 4's compare_attention).

    python experiments/formulations_check.py
"""

from _common import Run, execute, write_results

FORMULATIONS = ["additive", "dot", "scaled_dot", "general", "location", "cosine", "none"]


def main():
    for task in ("reverse", "copy"):
        runs = [execute(Run(f"{name}_{task}", f"configs/{name}.py:task={task}"),
                        "formulations_check") for name in FORMULATIONS]
        write_results(f"formulations_check/{task}",
                      f"Every formulation config on {task} (defaults, seed 0)", runs,
                      script="experiments/formulations_check.py")


if __name__ == "__main__":
    main()
