"""Training: the member-axis train state (``state``), the jitted steps (``steps``),
decoding, evaluation, the config checks and the loop (``loop``), which running/run.py
drives."""
