"""The one shape of every File > Import: read the file once, refuse another format's file
with the entry that opens it, parse it with its registry entry's reader, then build from the
parsed record inside one :class:`~.transaction.Transaction` (a failed import leaves the scene
as it was). Each engine's importer gives only its format's key and its builder, which takes
parsed data in (as io_scene_psk_psa's importers do)::

    def import_p3d(context, path, options=None):
        return import_file(context, path, "p3d",
                           lambda tx, model, data: _Builder(context, tx, model, path,
                                                            options).build())
"""

from ..formats import registry
from ..formats.files import read_file_bytes
from .transaction import Transaction

__all__ = ["import_file", "import_identified", "read_checked"]


def read_checked(path, key, data=None):
    """(bytes, record) of the file at ``path`` (or of ``data``, named by ``path``) in the
    format ``key``; a WrongFormatError naming the File > Import entry for another format."""
    data = read_file_bytes(path) if data is None else data      # once: the source kept
    fmt = registry.require(data, path, key)
    return data, fmt.read(data, path)


def import_file(context, path, key, build, data=None, check=None):
    """``build(tx, record, data)`` of the file at ``path`` in format ``key``, inside one
    transaction; ``check(record)`` may refuse the parsed record before anything is made."""
    data, record = read_checked(path, key, data)
    if check is not None:
        check(record)
    with Transaction(context) as tx:
        return build(tx, record, data)


def import_identified(context, path, importers, key, data=None, **options):
    """One way in for formats that share a file ending (Alamo's models and particle effects,
    both .alo): ``importers[fmt.key](context, path, data=data, **options)`` of the format the
    file is (:func:`registry.identify`); a file of none of them is refused as ``key``'s
    import refuses it (what it is, and the File > Import entry that opens it)."""
    data = read_file_bytes(path) if data is None else data
    fmt = registry.identify(data)
    if fmt is None or fmt.key not in importers:
        registry.require(data, path, key)            # raises: what the file is instead
        fmt = registry.by_key(key)
    return importers[fmt.key](context, path, data=data, **options)
