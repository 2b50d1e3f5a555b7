"""Keeping an effect's objects and their fields in step, so that what Blender shows is what the
export writes (issue 39, points 10, 11, 13):

- emitters are the system's children with ``alamo_emitter`` that are in a scene; their file
  order is their ``index`` (ties: the object that kept its imported name first), renumbered
  0, 1, 2... A copy (Shift+D) goes after the others, with a preview of its own;
- birth/death links are pointers to emitter objects (``birth_emitter``, ``death_emitter``):
  they follow the emitter through duplicates, reorders and deletes, and the ``birth`` /
  ``death`` numbers follow them. A link whose emitter is gone is dropped and remembered, for
  the export to name. A number no emitter has (a damaged file's 999) is kept as it was;
- the emitter's name follows its object's name when the object is renamed, and the object's
  name follows the emitter's Name field when that is edited;
- the texture name and the image follow each other: a new texture name finds its image, a
  new image gives its file name;
- the tracks' ramps and curves and their keys (``track_widgets``): the side edited is written
  into the other.

:func:`sync_system` runs before every export and every preview update."""

import os

import bpy

from ...texture_images import load_texture
from ...texture_lookup import TextureFinder
from ..particle_preview import nodes
from .keys import SOURCE_EMITTER_KEY, UAW_KEY
from .track_widgets import sync_emitter as sync_track_widgets

LINKS = ("birth", "death")
NAME_KEY = "alamo_object_name"      # the object's name when last in step
FIELD_NAME_KEY = "alamo_name_field"  # the emitter's Name field then
TEXTURE_KEY = "alamo_texture_seen"   # (texture name, image name) then
DROPPED_KEY = "alamo_dropped_{}"     # the name of the emitter a link lost
TARGET_KEY = "alamo_{}_target"       # the name of the emitter a link pointed to


def in_scene(obj) -> bool:
    """Whether ``obj`` is in a scene: a look-up by name per scene (``users_scene`` lists every
    scene's objects on each call), the full scan where the name is another object's."""
    try:
        name = obj.name
        for scene in bpy.data.scenes:
            found = scene.objects.get(name)
            if found is not None and found != obj:      # a linked object of the same name
                return bool(obj.users_scene)
            if found is not None:
                return True
        return False
    except ReferenceError:
        return False


def live_emitters(system_obj):
    """The system's emitter objects that are in a scene, in file order."""
    kids = [o for o in system_obj.children if o.alamo_emitter.index >= 0 and in_scene(o)]
    return sorted(kids, key=lambda o: (o.alamo_emitter.index, o.get(NAME_KEY) != o.name,
                                       o.name))


def _put(obj, key, value):
    """Set a custom property only when it changes (a write tags the object for an update)."""
    old = obj.get(key)
    if old is None or (list(old) if isinstance(value, list) else old) != value:
        obj[key] = value


def mark_in_step(obj):
    """Record ``obj``'s names, texture and links as they are now (after import or creation)."""
    p = obj.alamo_emitter
    obj[NAME_KEY] = obj.name
    obj[FIELD_NAME_KEY] = p.name
    _put(obj, TEXTURE_KEY, [p.texture, p.image.name if p.image is not None else ""])
    for link in LINKS:
        target = getattr(p, f"{link}_emitter")
        if target is not None:
            obj[TARGET_KEY.format(link)] = target.name


def set_links_from_numbers(objects):
    """Point each emitter's links at the emitters its numbers name (after import); a number
    no emitter has stays as it is, without a pointer."""
    for obj in objects:
        p = obj.alamo_emitter
        for link in LINKS:
            value = getattr(p, link)
            setattr(p, f"{link}_emitter", objects[value] if 0 <= value < len(objects) else None)


_FRAMES = {}        # scene name: the frame of its last preview update


def sync_scene(scene):
    """:func:`sync_system` for every effect of ``scene`` (before a preview update; Universe at
    War's too: their emitters are deleted, copied and reordered like EaW ones). An update for a
    new frame edits nothing: the tracks' widgets are compared only on the others (the
    comparison costs a good part of a frame; the export always makes it)."""
    frame = scene.frame_current + scene.frame_subframe
    widgets = _FRAMES.get(scene.name) == frame
    _FRAMES[scene.name] = frame
    for obj in scene.objects:
        if obj.alamo_particle_system.is_system:
            sync_system(obj, widgets)


def sync_system(system_obj, widgets=True):
    """Bring the system's emitters in step (see the module docstring); returns them in file
    order. ``widgets`` False: the tracks' widgets only made where missing."""
    objects = live_emitters(system_obj)
    by_number = {}
    for obj in objects:
        by_number.setdefault(obj.alamo_emitter.index, obj)
    _separate_copies(objects)
    for i, obj in enumerate(objects):
        if obj.alamo_emitter.index != i:
            obj.alamo_emitter.index = i
    place = {o.name: i for i, o in enumerate(objects)}
    widget_groups = set()
    eaw = not system_obj.get(UAW_KEY)   # UaW emitters keep their keys in plugins: no widgets
    for obj in objects:
        _sync_links(obj, place, by_number, objects)
        _sync_name(obj)
        _sync_texture(obj)
        if eaw and (widgets or obj.alamo_emitter.track_widgets is None):
            sync_track_widgets(obj, widget_groups)
    remove_deleted(system_obj)          # after the links to them were dropped
    return objects


def remove_deleted(system_obj):
    """Emitters deleted from the scene leave nothing behind: their preview's points object
    goes with them (else it stays in the .blend)."""
    for obj in [o for o in system_obj.children if o.alamo_emitter.index >= 0
                and not in_scene(o)]:
        points = nodes.points_object(obj)
        mod = obj.modifiers.get(nodes.MODIFIER_NAME)
        if mod is not None:
            obj.modifiers.remove(mod)
        if points is not None and points.users == 0 and not in_scene(points):
            mesh = points.data
            bpy.data.objects.remove(points)
            if mesh is not None and mesh.users == 0:
                bpy.data.meshes.remove(mesh)
        if obj.users == 0:
            bpy.data.objects.remove(obj)


def _separate_copies(objects):
    """A duplicated emitter (same preview points, same source record as another) becomes a
    new emitter: it goes last and gets its own preview."""
    seen_points, seen_source, copies = set(), set(), []
    for obj in objects:
        points = nodes.points_object(obj)
        source = obj.get(SOURCE_EMITTER_KEY)
        shared = points is not None and points.name in seen_points
        copy = shared or (source is not None and source in seen_source)
        if points is not None:
            seen_points.add(points.name)
        if source is not None:
            seen_source.add(source)
        if not copy:
            continue
        copies.append(obj)
        if shared:
            mod = obj.modifiers.get(nodes.MODIFIER_NAME)
            if mod is not None:
                obj.modifiers.remove(mod)       # the preview makes it its own
        if source is not None:
            del obj[SOURCE_EMITTER_KEY]
    for obj in copies:
        objects.remove(obj)
        objects.append(obj)


def _sync_links(obj, place, by_number, objects):
    p = obj.alamo_emitter
    for link in LINKS:
        pointer_name = f"{link}_emitter"
        target = getattr(p, pointer_name)
        number = getattr(p, link)
        last = obj.get(TARGET_KEY.format(link))
        if target is None and number >= 0 and last is None and number in by_number:
            target = by_number[number]          # a number set by a script: its emitter
            setattr(p, pointer_name, target)
        if target is not None and target.name not in place:
            _put(obj, DROPPED_KEY.format(link), target.name)  # its emitter was deleted
            setattr(p, pointer_name, None)
            target = None
        elif target is None and last is not None and last not in place:
            _put(obj, DROPPED_KEY.format(link), last)
        if target is not None:
            want = place[target.name]
            _put(obj, TARGET_KEY.format(link), target.name)
            obj.pop(DROPPED_KEY.format(link), None)
        else:
            obj.pop(TARGET_KEY.format(link), None)
            kept = number >= len(objects) and last is None and \
                DROPPED_KEY.format(link) not in obj
            want = number if kept else -1       # a damaged file's number: kept as it was
        if number != want:
            setattr(p, link, want)


def dropped_links(obj):
    """'birth link to "X"' for each link of ``obj`` whose emitter was deleted."""
    return [f"{link} link to {obj[DROPPED_KEY.format(link)]!r}" for link in LINKS
            if DROPPED_KEY.format(link) in obj]


def forget_dropped(obj):
    for link in LINKS:
        obj.pop(DROPPED_KEY.format(link), None)


def _sync_name(obj):
    p = obj.alamo_emitter
    if NAME_KEY not in obj:
        _put(obj, NAME_KEY, obj.name)
        _put(obj, FIELD_NAME_KEY, p.name)
        return
    if obj.name != obj[NAME_KEY]:
        if p.name != obj.name:
            p.name = obj.name               # the object was renamed: the emitter follows
    elif p.name != obj.get(FIELD_NAME_KEY) and p.name:
        obj.name = p.name                   # the Name field was edited: the object follows
    _put(obj, NAME_KEY, obj.name)
    _put(obj, FIELD_NAME_KEY, p.name)


def _sync_texture(obj):
    p = obj.alamo_emitter
    image = p.image.name if p.image is not None else ""
    seen = list(obj.get(TEXTURE_KEY, [p.texture, image]))
    if p.texture != seen[0]:
        p.image = find_image(p.texture, p.image)
    elif image != seen[1] and p.image is not None:
        p.texture = texture_name(p.image)
    _put(obj, TEXTURE_KEY, [p.texture, p.image.name if p.image is not None else ""])


def texture_name(image) -> str:
    """The texture name an image gives: its file's name (the image's name if it has none)."""
    path = bpy.path.abspath(image.filepath) if image.filepath else ""
    return os.path.basename(path.replace("\\", "/")) or image.name


def find_image(texture, old=None):
    """The image of ``texture``: one already loaded from a file of that name, else the file
    found beside ``old``'s (where the effect's textures were found); None if none."""
    if not texture:
        return None
    stem = os.path.splitext(texture.lower())[0]
    for img in bpy.data.images:
        if os.path.splitext(texture_name(img).lower())[0] == stem:
            return img
    if old is not None and old.filepath:
        found = TextureFinder.for_model(bpy.path.abspath(old.filepath)).find(texture)
        if found is not None:
            try:
                return load_texture(found)
            except RuntimeError:
                return None
    return None
