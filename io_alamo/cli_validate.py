"""``io-alamo validate``: every file's problems with their severity, over one core or several
(``--jobs``), with a progress line on a terminal for long runs.

Each file is read and parsed once; the models that animations are checked against are read
once per run (:func:`~io_alamo.formats.run_cache.run_cache`). A result is data::

    {"file": "x.alo", "format": "alo", "ok": false,
     "problems": [{"severity": "error", "message": "...", "where": "0x400/0x401"}]}
"""

import gc
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor

from .formats.content import open_input
from .formats.errors import FormatError, without_filename
from .formats.problems import SEVERITIES, as_problem, error
from .formats.run_cache import hold, run_cache

__all__ = ["check_files", "exit_status", "parts", "print_results",
           "processes", "progress", "validate_one"]

# files per task handed to a worker: big enough that a task outweighs its pickling
CHUNK = 64
# the smallest part toward the end of a run over several processes, as a share of CHUNK
LAST = 8


def validate_one(path):
    """One file's result (see the module's docstring); never raises for a bad file."""
    try:
        data, fmt = open_input(path, "validate")
        found = [as_problem(p) for p in fmt.validate(data, path)]
        return _result(path, fmt.key, found)
    except FormatError as e:
        return _result(path, None, [error(without_filename(e, path))], unread=True)
    except OSError as e:
        return _result(path, None, [error(e.strerror or str(e))], unread=True)


def _result(path, key, found, unread=False):
    problems = [{"severity": p.severity, "message": _own_text(p.message, path),
                 "where": p.where} for p in found]
    out = {"file": path, "format": key, "ok": not problems, "problems": problems}
    if unread:
        out["unread"] = True
    return out


def _own_text(message, path):
    """A message without the file name it may start with (the record names the file)."""
    return without_filename(message, path)


def _validate_many(paths):
    with run_cache():
        return [validate_one(p) for p in paths]


def progress(done, total, stream=None, verb="validate"):
    """``validate: 1,200 of 3,146 files`` over itself on a terminal's stderr (nothing when
    it is no terminal, or for fewer than 50 files)."""
    stream = stream or sys.stderr
    if total < 50 or not stream.isatty():
        return
    end = "\n" if done == total else ""
    stream.write(f"\r{verb}: {done:,} of {total:,} files{end}")
    stream.flush()


def check_files(paths, jobs=1, on_progress=progress):
    """The results of ``paths`` in their order; ``jobs`` > 1 spreads them over that many
    processes (folders of hundreds of files; fewer files run here), in the :func:`parts` of
    consecutive files; each worker keeps its models' verdicts for all its parts."""
    jobs = processes(len(paths), jobs)
    results = []
    gc.freeze()     # the collector leaves the program's own objects alone for the run (and
    try:            # forked workers share them untouched)
        if jobs == 1:
            with run_cache():           # one for the whole run: a folder's models may be in
                for part in parts(paths, 1):    # one part and its animations in the next
                    results += _validate_many(part)
                    on_progress(len(results), len(paths))
            return results
        with ProcessPoolExecutor(max_workers=jobs, mp_context=_context(),
                                 initializer=hold) as pool:
            for got in pool.map(_validate_many, parts(paths, jobs)):
                results += got
                on_progress(len(results), len(paths))
    finally:
        gc.unfreeze()
    return results


def processes(count, jobs):
    """How many processes ``validate --jobs JOBS`` uses for ``count`` files: ``JOBS`` (0: one
    per core), but no more than there are parts of :data:`CHUNK` files."""
    jobs = (os.cpu_count() or 1) if jobs == 0 else jobs
    return max(1, min(jobs, -(-count // CHUNK)))


def parts(paths, jobs):
    """``paths`` cut into runs of consecutive files, in their order: :data:`CHUNK` files each,
    and over several processes smaller toward the end (a quarter of what is left per process,
    down to ``CHUNK // LAST``), so that the workers finish together instead of one checking
    the last big part alone."""
    out, k, n = [], 0, len(paths)
    least = max(1, CHUNK // LAST)
    while k < n:
        size = CHUNK if jobs == 1 else min(CHUNK, max(least, -(-(n - k) // (4 * jobs))))
        out.append(paths[k:k + size])
        k += size
    return out


def _context():
    """Workers forked from this process where that is safe (Linux and the BSDs: no start-up
    imports, the modules already loaded are shared), else the platform's default (spawn on
    Windows and macOS)."""
    if sys.platform != "darwin" and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return None


def problem_text(r, p):
    """``FILE: error: where: message``."""
    where = f"{p['where']}: " if p["where"] else ""
    return f"{r['file']}: {p['severity']}: {where}{p['message']}"


def print_results(results, quiet=False, severities=SEVERITIES):
    for r in results:
        for p in r["problems"]:
            if p["severity"] in severities:
                print(problem_text(r, p))
        if r["ok"] and not quiet:
            print(f"{r['file']}: ok")
    print(summary_line(results))


def _count(n, word):
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def summary_line(results):
    """``validated 3 files: 1 not read, 1 with 3 problems (1 error, 2 notes), 1 ok``."""
    unread = sum(1 for r in results if r.get("unread"))
    bad = [r for r in results if r["problems"] and not r.get("unread")]
    found = dict.fromkeys(SEVERITIES, 0)
    for r in bad:
        for p in r["problems"]:
            found[p["severity"]] += 1
    parts = [f"{unread:,} not read"] if unread else []
    if bad:
        kinds = ", ".join(_count(n, s) for s, n in found.items() if n)
        parts.append(f"{len(bad):,} with {_count(sum(found.values()), 'problem')} ({kinds})")
    parts.append(f"{sum(1 for r in results if r['ok']):,} ok")
    return f"validated {_count(len(results), 'file')}: " + ", ".join(parts)


def exit_status(results, strict=False):
    """1 when a file holds an error (or, with ``strict``, a warning) or was not read."""
    worst = ("error", "warning") if strict else ("error",)
    return int(any(p["severity"] in worst for r in results for p in r["problems"]))
