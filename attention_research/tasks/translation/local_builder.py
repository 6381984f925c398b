"""What the built-in corpora's TFDS builders share: they write ``array_record`` (read
with no TensorFlow) and take their files from ``task.data_path`` (``source_path``) or
TFDS's manual directory before they try a download."""

from __future__ import annotations

from pathlib import Path

import tensorflow_datasets as tfds


class LocalFilesBuilder(tfds.core.GeneratorBasedBuilder):
    """A builder whose files may be given by path (abstract: TFDS registers only its
    subclasses, which define ``_info`` and ``_split_generators``)."""

    def __init__(self, *, source_path: str | None = None, **kwargs):
        self._source_path = source_path
        kwargs.setdefault("file_format", "array_record")
        super().__init__(**kwargs)

    @staticmethod
    def manual_dir(dl_manager) -> Path | None:
        """TFDS's manual directory, or None: it exists only if the user made it."""
        try:
            return dl_manager.manual_dir
        except Exception:  # noqa: BLE001 — TFDS raises its own AssertionError here
            return None
