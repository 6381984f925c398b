"""Machine translation: corpora through TFDS (``ding_de_en`` built in), subwords, the
input pipeline, BLEU, and the ``translation`` task (``task.py``)."""
