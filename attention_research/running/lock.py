"""An exclusive lock on a work directory while a process writes to it.

Two runs that write to one directory at once would interleave metrics and fight over
checkpoints. So a run (or, in a sweep, each cohort) first locks its directory with
``fcntl.flock`` on the file ``lock`` in it. The kernel releases a flock lock when
its process ends, however it ends (``kill -9`` included). A lock left behind by a
killed process is therefore free, and the next run takes it over safely, with no
pid guessing and no race. The file records the holder's pid and host, so that a
refused run can say whom it waited for.

A lock on a file that is then deleted (or replaced) still holds, but on an inode no
other run can find: a second run would create and lock a new ``lock`` and write beside
the first. So the holder checks, at every train call (``verify``, one ``stat``), that
``lock`` is still the file it locked, and stops if not; ``acquire`` makes the same check
after locking, since the file may be replaced between opening and locking it.
Locks hold on local file systems, and on NFS, where Linux maps ``flock`` onto NFS
byte-range locks.
"""

from __future__ import annotations

import datetime
import fcntl
import json
import os
import socket
from pathlib import Path

from attention_research.errors import RunError

LOCK_NAME = "lock"


class WorkDirLockedError(RunError):
    pass


class DirectoryLock:
    def __init__(self, directory):
        self.directory = Path(directory)
        self.path = self.directory / LOCK_NAME
        self._fd = None

    def acquire(self) -> "DirectoryLock":
        self.directory.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except IsADirectoryError:
            raise WorkDirLockedError(
                f"{self.path} is a directory, where a run keeps its lock file: move it "
                "away (nothing of the run is in it) and rerun the same command") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if not _same_file(fd, self.path):  # replaced between open and flock
                os.close(fd)
                return self.acquire()
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise WorkDirLockedError(
                f"{self.directory} is in use by another run (pid {holder.get('pid', '?')} "
                f"on host {holder.get('host', '?')}, since {holder.get('since', '?')}). "
                "Wait for it to finish or stop it, or pass another --workdir.") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({
            "pid": os.getpid(), "host": socket.gethostname(),
            "since": datetime.datetime.now().isoformat(timespec="seconds")}).encode(), 0)
        self._fd = fd
        return self

    def check_free(self):
        """Raise ``acquire``'s error if another run holds the lock now; hold nothing.
        For a command that must be refused before it writes anything (a sweep's line
        in commands.txt)."""
        if self.path.is_file():
            self.acquire().release()

    def verify(self, step=None):
        """Raise unless ``lock`` is still the file this run locked (see above)."""
        if self._fd is None or _same_file(self._fd, self.path):
            return
        at = f" at step {step}" if step is not None else ""
        raise WorkDirLockedError(
            f"{self.path} was deleted or replaced while this run held it, so another run "
            f"may be writing to {self.directory} too; this run stopped{at} and keeps what "
            "it saved. Make sure no other run uses the directory, then rerun the same "
            "command to resume.")

    def release(self):
        """Empty the file (a later reader sees no holder) and let the lock go."""
        if self._fd is None:
            return
        os.ftruncate(self._fd, 0)
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


def _same_file(fd, path) -> bool:
    """Whether ``path`` names the open file ``fd`` (same device and inode)."""
    try:
        now = os.stat(path)
    except OSError:
        return False
    held = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


def _read_holder(fd) -> dict:
    """The holder's pid, host and start time, or {} while it has not written them yet."""
    try:
        return json.loads(os.pread(fd, 4096, 0) or b"{}")
    except ValueError:
        return {}
