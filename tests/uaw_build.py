"""Test-only builder of Universe at War particle effects (root 0x1500) whose plugins carry the
parameters a modder edits, written straight from the layout FORMAT-NOTES gives and the
alo-viewer's plugin readers describe (plugin ids, parameter ids and types): a shape creator
(34) with its spawn parameters and position/velocity property groups, a world translater
(27), an age killer (19) with the lifetime, a billboard renderer (22) with texture and shader,
a constant size (57) and a constant colour (59). Independent of io_alamo: ``struct`` only.

    data = effect([emitter("fire", ...), emitter("sparks", creator=death_creator("fire"))])
"""

import struct

import particle_build as pb

POINT, DIRECTION, SPHERE, RANGE, SPHERICAL_RANGE, CYLINDER, TORUS = range(7)


def f32(v):
    return struct.pack("<f", v)


def group(kind=POINT, point=(0, 0, 0), direction=(0, 0, 1), magnitude=(0, 0), radius=(0, 0),
          lo=(0, 0, 0), hi=(0, 0, 0), cylinder=(0, 0, 0), angle=(0, 0), sphere_radius=(0, 0),
          torus=(0, 0)):
    """A 104-byte property group: type, point, direction, magnitude min/max, radius min/max,
    min and max corners, sphere angles, sphere radii, cylinder radius and height min/max,
    torus and tube radius."""
    return struct.pack("<I3f3f2f2f3f3f2f2ff2f2f", kind, *point, *direction, *magnitude,
                       *radius, *lo, *hi, *angle, *sphere_radius, *cylinder, *torus)


def shape_creator(per_interval=10.0, interval=1.0, bursting=False, delay=0.0, stop=0.0,
                  position=None, velocity=None, hollow=(False, False)):
    return pb.plugin(34, [(100, f32(per_interval)), (101, f32(interval)),
                          (102, bytes([int(bursting)])), (103, f32(delay)), (104, f32(stop)),
                          (105, position or group()), (106, bytes([int(hollow[0])])),
                          (107, velocity or group()), (108, bytes([int(hollow[1])]))])


def simple_creator(pid, per_second=10.0, speed=1.0, variation=0.0, sizes=()):
    """An obsolete creator (0 point, 2 sphere, 3 box, 4 torus): a stream at ``speed``;
    ``sizes`` its shape's floats from parameter 100 on (radius; length, width, height; torus
    and tube radius)."""
    return pb.plugin(pid, [(0, f32(per_second)), (1, f32(speed)), (2, f32(variation)),
                           *((100 + i, f32(v)) for i, v in enumerate(sizes))])


def death_creator(parent, per_interval=4.0, velocity=None):
    return pb.plugin(40, [(100, f32(per_interval)), (101, group()), (102, b"\x00"),
                          (103, velocity or group()), (104, b"\x00"),
                          (109, pb.cstr(parent))])


def velocity_creator(pid, extra, per_interval=1.0, interval=0.5, velocity=None):
    """A shape (34) or enhanced trail (39) creator with the velocity options and ``extra``
    parameters (a trail's parent name at 300)."""
    return pb.plugin(pid, [(100, f32(per_interval)), (101, f32(interval)),
                           (102, b"\x00"), (103, f32(0.0)), (104, f32(0.0)),
                           (105, group()), (106, b"\x00"), (107, velocity or group()),
                           (108, b"\x00"), *extra])


def velocity_options(local=True, inherit=False, scale=1.0, cap=1e30):
    return [(109, bytes([local])), (110, bytes([inherit])), (111, f32(scale)),
            (112, f32(cap))]


def emitter(name, creator=None, lifetime=2.0, variation=0.0, texture="p_uaw_fire.tga",
            shader="Engine/PrimAdditive.fx", size=0.5, colour=(1.0, 0.5, 0.25, 1.0),
            spawn_on_death=False, modifiers=()):
    """An emitter; ``spawn_on_death`` sets the killer's "spawn on age" (parameter 3), without
    which no death creator naming this emitter fires."""
    return {"name": name, "texture": texture, "lifetime": lifetime, "plugins": [
        (0x1, creator or shape_creator()), (0x2, pb.plugin(27)),
        (0x3, pb.plugin(19, [(0, f32(lifetime)), (1, f32(variation)),
                             (3, bytes([int(spawn_on_death)]))])),
        (0x4, pb.plugin(22, [(100, pb.cstr(texture)), (101, pb.cstr(shader))])),
        (0x5, pb.plugin(57, [(100, b"\x01"), (200, f32(size)), (201, f32(0.0))])),
        (0x5, pb.plugin(59, [(100, b"\x01"), (200, struct.pack("<4f", *colour))])),
        *((0x5, m) for m in modifiers)]}


def acceleration(vector, local=False):
    return pb.plugin(10, [(200, struct.pack("<3f", *vector)), (201, bytes([int(local)]))])


def attract(value):
    return pb.plugin(11, [(200, f32(value))])


def keyed_size(keys, smooth=False, variation=0.0):
    """Keyed size (15): ``keys`` [(life fraction, size)]."""
    body = struct.pack("<I", len(keys)) + b"".join(struct.pack("<2f", *k) for k in keys)
    return pb.plugin(15, [(200, bytes([int(smooth)])), (300, body), (301, f32(variation))])


def keyed_colour(keys, smooth=False):
    """Keyed colour (17): ``keys`` [(life fraction, (r, g, b, a))]."""
    body = struct.pack("<I", len(keys)) + b"".join(struct.pack("<5f", t, *c) for t, c in keys)
    return pb.plugin(17, [(200, bytes([int(smooth)])), (300, body)])


def effect(emitters, name="p_uaw_test"):
    """A 0x1500 system in the order the viewer's ``ReadFormat_V2`` reads (and so the real
    files it plays hold): name 0x0, 0x1, 0x2, then the emitter list 0x1520. (FORMAT-NOTES
    lists 0x2 after the list; the viewer refuses that order.)"""
    body = [pb.container(0x1540, pb.chunk(0x0, pb.cstr(e["name"])),
                         *(pb._plugin_bytes(slot, spec) for slot, spec in e["plugins"]))
            for e in emitters]
    return pb.container(0x1500, pb.chunk(0x0, pb.cstr(name)), pb.chunk(0x1, b"\x01"),
                        pb.chunk(0x2, b"\x00"), pb.container(0x1520, *body))
