"""What the batch converter shows while it runs: one line per file with its warnings counted,
a live progress line on a terminal, a summary at the end; and Blender's own output (render
frame counters, glTF INFO lines, "Saved ..." notes) kept out of the way unless asked for."""

import contextlib
import ctypes
import os
import re
import sys
import time

FAILED = ("failed", "differs")

# Warning texts of the importer and exporter, grouped so that a file's line can say
# "3 textures not found" instead of listing them (--verbose lists them).
WARNING_KINDS = (
    (re.compile(r"texture .* not found"), "texture not found", "textures not found"),
    (re.compile(r"texture .* could not be read"), "texture unreadable", "textures unreadable"),
    (re.compile(r"animation not imported"), "animation not imported", "animations not imported"),
)


def warning_counts(warnings):
    """{(singular, plural): count} of ``warnings``, in the order the kinds first appear."""
    counts = {}
    for text in warnings:
        kind = next(((one, many) for pattern, one, many in WARNING_KINDS
                     if pattern.search(text)), ("warning", "warnings"))
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def unique_counts(texts):
    """``[(text, times)]`` in the order each text first appears: a warning given for every
    bone or mesh is listed once."""
    counts = {}
    for t in texts:
        counts[t] = counts.get(t, 0) + 1
    return list(counts.items())


def describe_counts(counts):
    """``"3 textures not found, 1 warning"``."""
    return ", ".join(f"{n} {one if n == 1 else many}" for (one, many), n in counts.items())


def duration(seconds):
    """``"42 s"``, ``"3:07"`` or ``"1:02:03"`` (hours:minutes:seconds)."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    m, s = divmod(seconds, 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class BatchReport:
    """Collects the results of a batch run and prints them as they come.

    On a terminal a progress line (count, files per second, time left, current file) stays
    under the per-file lines and is redrawn in place; in a pipe or a log file every file
    gets exactly one line and nothing is redrawn."""

    def __init__(self, total, stream=None, verbose=False, clock=time.perf_counter):
        self.total, self.verbose, self.clock = total, verbose, clock
        self.stream = stream or sys.stdout
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.done = []
        self.started = clock()
        self._shown = False

    def stage(self, path, what, write=None):
        """Show the stage a file is at on the progress line (``now X.ALO: writing .glb``);
        ``write`` writes to the terminal while Blender's output is hidden. Nothing in a pipe
        (one line per file there)."""
        if not self.live:
            return
        text = "\r\x1b[K" + self.progress_text(path) + f": {what}"
        if write is not None:
            write(text)
        else:
            self._write(text)
        self._shown = True

    def progress_text(self, current=None):
        k, n = len(self.done), self.total
        elapsed = self.clock() - self.started
        parts = [f"[{k}/{n}]", f"{100 * k // max(n, 1)}%"]
        if k and elapsed > 0:
            rate = k / elapsed
            parts += [f"{rate:.2f} files/s" if rate < 10 else f"{rate:.0f} files/s",
                      f"{duration((n - k) / rate)} left"]
        if current is not None:
            parts.append(f"now {os.path.basename(str(current))}")
        return "  ".join(parts)

    def _write(self, text):
        print(text, end="", file=self.stream, flush=True)

    def _clear_progress(self):
        if self._shown:
            self._write("\r\x1b[K")
            self._shown = False

    def _show_progress(self, current=None):
        if self.live:
            self._clear_progress()
            self._write(self.progress_text(current))
            self._shown = True

    def start(self, path):
        """A file is about to be converted (redraws the progress line on a terminal)."""
        self._show_progress(path)

    def add(self, r):
        """One result dict of ``batch.run_one``: prints its line (and, with --verbose, its
        warnings one per line)."""
        self.done.append(r)
        line = (f"[{len(self.done)}/{self.total}] {r['status']:<9} {r['path']} "
                f"({r['seconds']:.2f} s)")
        notes = [r["message"]] if r["message"] else []
        warnings = r.get("warnings") or []
        if warnings:
            notes.append(describe_counts(warning_counts(warnings)))
        if notes:
            line += "  " + "; ".join(notes)
        self._clear_progress()
        print(line, file=self.stream, flush=True)
        if self.verbose:
            for w, n in unique_counts(warnings):
                more = f" ({n} times)" if n > 1 else ""
                print(f"    warning: {w}{more}", file=self.stream, flush=True)
        if len(self.done) < self.total:
            self._show_progress()

    def summary(self, seconds):
        """Prints the closing line; returns the exit status (1 if any file failed or, for
        roundtrip, differs)."""
        self._clear_progress()
        counts = {}
        for r in self.done:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
        parts = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        n = len(self.done)
        line = f"{n:,} file{'' if n == 1 else 's'} in {seconds:.1f} s: {parts or 'nothing to do'}"
        warned = [r for r in self.done if r.get("warnings")]
        if warned:
            every = [w for r in warned for w in r["warnings"]]
            line += (f"; {len(every)} warning{'s' if len(every) != 1 else ''} in "
                     f"{len(warned)} file{'s' if len(warned) != 1 else ''} "
                     f"({describe_counts(warning_counts(every))})")
            if not self.verbose:
                line += "; --verbose lists them"
        print(line, file=self.stream, flush=True)
        return 1 if any(r["status"] in FAILED for r in self.done) else 0


def _c_stdio_flush():
    """``fflush(NULL)``: Blender's C code buffers what it prints when the output is not a
    terminal; it must reach the sink before the real output is put back."""
    try:
        libc = ctypes.cdll.ucrtbase if os.name == "nt" else ctypes.CDLL(None)
        libc.fflush(None)
    except (OSError, AttributeError):
        pass


@contextlib.contextmanager
def blender_output_hidden(hide=True):
    """Throw away everything written to the process's stdout and stderr (by Python or by C
    code: Cycles' ``Fra:1 Mem:...`` lines, the glTF exporter's INFO lines, "Saved ..."),
    for the duration of the block, which gets a function that still writes text to the real
    stdout (for the progress line)."""
    def through(fd):
        def write(text):
            with contextlib.suppress(OSError):
                os.write(fd, text.encode("utf-8", "replace"))
        return write
    if not hide:
        yield None
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        saved = (os.dup(1), os.dup(2))
    except OSError:              # no real stdout (e.g. a GUI without a console)
        yield None
        return
    with open(os.devnull, "w") as null, \
            contextlib.redirect_stdout(null), contextlib.redirect_stderr(null):
        os.dup2(null.fileno(), 1)          # C code, and Python code holding the real streams
        os.dup2(null.fileno(), 2)
        try:
            yield through(saved[0])
        finally:
            _c_stdio_flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
