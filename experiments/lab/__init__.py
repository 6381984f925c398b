"""The lab: the code that keeps and decides this project's own findings, on top of the
library (``attention_research``), which never imports it.

``findings`` regenerates experiments/FINDINGS.md from the committed records
(``python -m experiments.lab.findings``); ``record`` copies a sweep's finished members and
report into experiments/results/NAME (``launch.py --record``); ``rescore`` and
``redraw_heatmaps`` redo a record's scores or heat maps from its own files.
"""
