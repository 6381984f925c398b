"""Machine translation: corpora through TFDS (``ding_de_en`` built in) and subwords."""
