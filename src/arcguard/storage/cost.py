"""What each hook run cost, kept where `arcguard status --cost` reads it.

Recorded only once the state directory exists (the first hook that keeps state makes it).

Every hook run appends one short line, `<mode> <hook> <microseconds>`, to `cost.log` in the
state directory: one open, one append, one close, no lock (an append this small lands whole),
so recording costs the hook path next to nothing. Past MAX_BYTES the file becomes
`cost.log.1` (replacing the previous one), so the figures cover the most recent runs (about
2,500 to 5,000 of them) and the files stay small whatever the uptime.

A command hook measures from its process start, as the kernel recorded it (/proc/self/stat,
in clock ticks: 10 ms at the usual 100 Hz, so a single figure is that coarse, while medians
over many runs are not biased by more than half a tick), to its last output; a resident
request from the accepted connection to the answer written; an SDK application's hook from
the callback's start to its answer.
"""

from __future__ import annotations

import os
import time


NAME = "cost.log"
MAX_BYTES = 64 * 1024
COMMAND = "command"
RESIDENT = "resident"
# In-process hooks of a Claude Agent SDK application (`arcguard.sdk`).
SDK = "sdk"
MODES = (COMMAND, RESIDENT, SDK)
# No run is recorded as longer than this (a line must stay a few bytes long).
MAX_MICROS = 10**9
# Read no more than this of each file (a hostile or damaged file must not cost the verb).
READ_LIMIT = 4 * MAX_BYTES


def path(home: str) -> str:
    return os.path.join(home, NAME)


def since_process_start() -> float | None:
    """Seconds since the kernel started this process, or None where that cannot be read."""
    try:
        with open("/proc/self/stat", "rb") as handle:
            stat = handle.read(4096)
        # Field 22, starttime, counted after the command name, which may hold spaces and ")".
        fields = stat[stat.rindex(b")") + 2 :].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started)
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def record(home: str, mode: str, hook: str, seconds: float) -> None:
    """Append one run. Never raises: a cost that cannot be written is simply not counted."""
    micros = min(MAX_MICROS, max(0, int(seconds * 1_000_000)))
    line = f"{mode} {hook} {micros}\n".encode("ascii", "replace")
    target = path(home)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    from arcguard.storage import paths

    # Only in a state directory that exists and is safe: a hook that keeps no state creates
    # nothing, and a refused directory (a symlink, writable by others) gets nothing.
    if not paths.usable_dir(home):
        return
    try:
        fd = os.open(target, flags, 0o600)
    except OSError:
        return
    try:
        import stat

        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return
        os.write(fd, line)
        # Only the file this run appended to is rotated: another run may have done it first.
        if info.st_size + len(line) > MAX_BYTES and os.lstat(target).st_ino == info.st_ino:
            os.replace(target, target + ".1")
    except OSError:
        pass
    finally:
        os.close(fd)


Runs = dict[tuple[str, str], list[int]]


def read(home: str) -> Runs:
    """(mode, hook) -> microseconds of each recorded run, oldest file first."""
    found: Runs = {}
    for name in (path(home) + ".1", path(home)):
        for line in _lines(name):
            parts = line.split()
            if len(parts) != 3 or parts[0] not in MODES or not parts[2].isdigit():
                continue
            found.setdefault((parts[0], parts[1]), []).append(int(parts[2]))
    return found


def _lines(name: str) -> list[str]:
    import stat

    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        data = os.read(fd, READ_LIMIT)
    except OSError:
        return []
    finally:
        os.close(fd)
    return data.decode("ascii", "replace").splitlines()


def quantile(values: list[int], q: float) -> int:
    """The `q` quantile of `values` (nearest rank), which must not be empty."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, int(q * len(ordered) + 0.999999) - 1))
    return ordered[rank]
