"""The rollback every importer runs in: the datablocks an import creates are removed again,
and selection, active object and scene timing restored, when the import fails."""

import bpy


class Transaction:
    """Tracks the datablocks an import creates; removes them all if the import fails."""

    def __init__(self, context):
        self.context = context
        self.created = []

    def add(self, idblock):
        self.created.append(idblock)
        return idblock

    def __enter__(self):
        vl = self.context.view_layer
        self._active = vl.objects.active
        self._selected = [o for o in vl.objects if o.select_get()]
        scene = self.context.scene
        self._timing = (scene.render.fps, scene.render.fps_base, scene.frame_start,
                        scene.frame_end)          # an imported animation may have set them
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            return False
        if self.context.object is not None and self.context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        alive = [i for i in self.created if _alive(i)]
        if alive:
            bpy.data.batch_remove(alive)
        vl = self.context.view_layer
        for o in vl.objects:
            if o is not None:               # the view layer may list removed objects as None
                o.select_set(False)
        for o in self._selected:
            if _alive(o) and o.name in vl.objects:
                o.select_set(True)
        if self._active is not None and _alive(self._active):
            vl.objects.active = self._active
        scene = self.context.scene
        scene.render.fps, scene.render.fps_base = self._timing[:2]
        scene.frame_start, scene.frame_end = self._timing[2:]
        return False


def _alive(idblock):
    try:
        idblock.name
        return True
    except ReferenceError:
        return False
