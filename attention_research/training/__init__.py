"""Training: the member-axis train state (``state``), the jitted steps (``steps``)
and the loop (``loop.train``)."""
