"""What the engines' Blender packages declare, found by name (as the format layer's
``entries``): modules named ``operators`` (File menu entries, with register()/unregister())
and ``batch`` (the batch converter's steps, ``STEPS = {format key: run_verb}``, and the
preview render's small images, ``PREVIEW_IMAGES``) anywhere under
``io_alamo.blender.<package>``. Neutral: it imports no engine by name."""

import importlib
import pkgutil

__all__ = ["declared_batch_steps", "declared_preview_images", "engine_modules", "forget"]

_found = {}


def engine_modules(name, package=__package__):
    """The modules named ``name`` inside the subpackages of ``package`` (any depth, not the
    package's own top-level modules), imported, sorted by dotted name."""
    root = importlib.import_module(package)
    names = sorted(info.name for info in pkgutil.walk_packages(root.__path__, package + ".")
                   if info.name.rpartition(".")[2] == name
                   and info.name.count(".") > package.count(".") + 1)
    return [importlib.import_module(n) for n in names]


def declared_batch_steps():
    """{format key: run_verb(verb, path, rel, out, **options)} of every engine's ``batch``."""
    if "batch" not in _found:
        steps = {}
        for module in engine_modules("batch"):
            steps.update(getattr(module, "STEPS", {}))
        _found["batch"] = steps
    return _found["batch"]


def declared_preview_images():
    """[maker(image, limit)] of every engine's ``batch`` (io_alamo.blender.preview_images)."""
    if "preview_images" not in _found:
        _found["preview_images"] = [maker for module in engine_modules("batch")
                                    for maker in getattr(module, "PREVIEW_IMAGES", ())]
    return _found["preview_images"]


def forget():
    """Look again next time (after a package was added to the search path)."""
    _found.clear()
