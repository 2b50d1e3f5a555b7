"""What a unit shows by default: the highest LOD of each name, and ALT0 of the whole unit (the
game's damage state starts undamaged: an ALT1 name without an ALT0 waits for ALT1)."""

from io_alamo.formats.alamo.naming import default_visibility


def test_alt1_without_alt0_waits_for_the_damage_state():
    names = ["Hull_LOD0", "Hull_LOD1", "Tower_ALT0", "Tower_ALT1", "p_smoke_ALT1",
             "p_fire_ALT2", "Flag"]
    assert dict(zip(names, default_visibility(names))) == {
        "Hull_LOD0": False, "Hull_LOD1": True, "Tower_ALT0": True, "Tower_ALT1": False,
        "p_smoke_ALT1": False, "p_fire_ALT2": False, "Flag": True}
