"""The errors a user meets, and how ``launch.py`` explains them in one line.

``ConfigError`` (and the two checks every config fragment is validated with) for a
config refused before anything runs; ``RunError`` for a run that cannot go on.
Kept apart from ``config_checks`` so that the registries (tasks, model families),
which validate their own fragments, need not import the module that imports them.
"""

from __future__ import annotations

import difflib
import errno


class ConfigError(ValueError):
    """An unknown name or an impossible value in a config, found before anything runs."""


def did_you_mean(value, valid) -> str:
    """" (did you mean 'additive'?)" for a near miss among ``valid``, else ''."""
    close = difflib.get_close_matches(str(value), [str(v) for v in valid], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def choice(value, valid, field: str):
    """Refuse ``value`` unless it is one of ``valid``, naming the field, the choices and
    the nearest one."""
    if value not in valid:
        raise ConfigError(f"{field}={value!r} is not known{did_you_mean(value, valid)}; "
                          f"valid choices: {', '.join(valid)}")


def require(condition, message: str):
    if not condition:
        raise ConfigError(message)


class InputError(ValueError):
    """An input a trained model cannot take (a symbol outside its vocabulary, a source
    longer than it was built for, an empty line), or a file of inputs that cannot be
    read: named with what is wrong and what it accepts."""


class RunError(RuntimeError):
    """A problem with a run that its user can act on (a locked or unwritable work
    directory, a damaged checkpoint, a non-finite loss, missing data). ``launch.py``
    prints its message as ``error: …`` without a traceback."""


# errno -> (what went wrong, what to do), for the OSErrors a run meets: a work
# directory it cannot write, a full disk. ``workdir.ensure_writable`` words its
# refusal with the same reasons.
_OS_ERRORS = {
    errno.ENOSPC: ("the disk is full", "free some space and rerun the same command (it "
                   "resumes from the last checkpoint, which is kept)"),
    errno.EDQUOT: ("the disk quota is used up",
                   "free some space and rerun the same command"),
    errno.EFBIG: ("a file grew past the size this process may write (ulimit -f)",
                  "raise the limit and rerun the same command"),
    errno.EACCES: ("permission denied", "pass a --workdir you can write to"),
    errno.EPERM: ("permission denied", "pass a --workdir you can write to"),
    errno.EROFS: ("the file system is read-only", "pass a --workdir you can write to"),
    errno.EEXIST: ("a file of that name is in the way", "pass another --workdir"),
    errno.ENOTDIR: ("part of the path is a file, not a directory", "pass another --workdir"),
}


def os_reason(error: OSError) -> str:
    """What an OSError means, in words a user acts on."""
    return _OS_ERRORS.get(error.errno, (error.strerror,))[0]


# Errors from libraries (orbax, tensorstore) that carry the OS error only in their text.
_TEXT_ADVICE = {"No space left on device": errno.ENOSPC, "File too large": errno.EFBIG,
                "Disk quota exceeded": errno.EDQUOT, "Read-only file system": errno.EROFS,
                "Permission denied": errno.EACCES}


def explain(error: BaseException) -> str:
    """One line for the user: what went wrong, and what to do. An error of this
    package says it itself; an OS error is named with its path and advice; anything
    else (a bug, most likely) is named by its type, with a pointer to --verbose."""
    if isinstance(error, (ConfigError, InputError, RunError)):
        return str(error)
    if isinstance(error, OSError) and error.errno is None and error.args:
        return str(error)  # a message of ours, e.g. how to get a missing dataset
    code = getattr(error, "errno", None)
    if code is None:
        code = next((c for text, c in _TEXT_ADVICE.items() if text in str(error)), None)
    if code in _OS_ERRORS:
        where = getattr(error, "filename", None)
        reason, action = _OS_ERRORS[code]
        return f"{reason}: {action}" + (f" ({where})" if where else "") + (
            "" if isinstance(error, OSError) else f" [{type(error).__name__}: "
            f"{_first_line(error)}]")
    return (f"{type(error).__name__}: {_first_line(error)} (rerun with --verbose for the "
            "full traceback)")


def _first_line(error) -> str:
    text = str(error).strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= 300 else line[:300] + "…"
