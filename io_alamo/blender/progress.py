"""Blender's progress indicator (the number on the mouse cursor) during multi-file imports and
long exports.

An operator opens one :class:`WindowProgress` (``@reports_progress`` on its ``execute``); the
code doing the work says how many steps it is about to take (:func:`expect`) and takes them
(:func:`advance`) without knowing who shows them. Blender's own progress state is global too,
so the open indicators are kept in one stack and the innermost one counts. Headless (no
window, or Blender in background mode) nothing is shown, but steps are still counted.
"""

import functools

import bpy

_OPEN = []


class WindowProgress:
    """``context.window_manager.progress_begin/update/end`` over ``total`` steps; the total
    may grow while the work finds out how much there is."""

    def __init__(self, context, total=0):
        wm = getattr(context, "window_manager", None)
        has_window = wm is not None and len(getattr(wm, "windows", ())) > 0
        self.wm = wm if has_window and not bpy.app.background else None
        self.total = total
        self.value = 0

    @property
    def shown(self):
        return self.wm is not None

    def __enter__(self):
        _OPEN.append(self)
        if self.wm is not None:
            self.wm.progress_begin(0, max(self.total, 1))
        return self

    def __exit__(self, *exc):
        _OPEN.remove(self)
        if self.wm is not None:
            self.wm.progress_end()
        return False

    def expect(self, steps):
        self.total += max(int(steps), 0)
        if self.wm is not None:
            self.wm.progress_begin(0, max(self.total, 1))
            self.wm.progress_update(self.value)

    def advance(self, steps=1):
        self.value = min(self.value + steps, self.total)
        if self.wm is not None:
            self.wm.progress_update(self.value)


def expect(steps):
    """The work ahead has ``steps`` more steps (nothing happens when no indicator is open)."""
    if _OPEN:
        _OPEN[-1].expect(steps)


def advance(steps=1):
    """One step of the work is done."""
    if _OPEN:
        _OPEN[-1].advance(steps)


def reports_progress(execute):
    """Decorator for an operator's ``execute(self, context)``: a progress indicator is open
    while it runs."""
    @functools.wraps(execute)
    def wrapper(self, context):
        with WindowProgress(context):
            return execute(self, context)
    return wrapper
