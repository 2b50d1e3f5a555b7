"""Path helpers on top of the bytes-in, bytes-out readers and writers of .alo and .ala
(reading a path is :mod:`io_alamo.formats.files`, shared by every format)."""

import os

from ..errors import AlamoFormatError
from ..files import PathLike, read_file_bytes
from ..saving import write_all
from .alo_read import decode_alo, read_alo
from .alo_write import write_alo
from .animation import Animation, decode_ala, read_ala, write_ala
from .chunk_types import ChunkType
from .chunks import BytesLike, read_chunks
from .game_rules import GameRefusedError, game_refusals
from .model import Model, ParticleEffect
from .particles.game_rules import particle_refusals


def load_alo(path: PathLike) -> Model | ParticleEffect:
    return read_alo(read_file_bytes(path), filename=os.fspath(path))


def load_ala(path: PathLike) -> Animation:
    return read_ala(read_file_bytes(path), filename=os.fspath(path))


def read_any(data: BytesLike, filename: str | None = None
             ) -> Model | ParticleEffect | Animation:
    """A Model, ParticleEffect or Animation, whichever the bytes hold."""
    try:
        roots = read_chunks(data)
        if roots and roots[0].type == ChunkType.ANIMATION:
            return decode_ala(roots)
        return decode_alo(roots)
    except AlamoFormatError as e:
        raise e.with_filename(filename)


def load(path: PathLike) -> Model | ParticleEffect | Animation:
    return read_any(read_file_bytes(path), filename=os.fspath(path))


def encode(obj: Model | ParticleEffect | Animation | bytes) -> bytes:
    """The file's bytes: a model's or animation's; bytes (another format's) as they are."""
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj)
    return write_ala(obj) if isinstance(obj, Animation) else write_alo(obj)


def save(obj: Model | ParticleEffect | Animation, path: PathLike, *, keep=(),
         game_check=True) -> None:
    """Write a model or animation atomically: the target is replaced only on success
    (``keep`` and ``game_check`` as for :func:`save_all`)."""
    save_all([(obj, path)], keep=keep, game_check=game_check)


def save_all(items, *, keep=(), game_check=True) -> None:
    """Write several models or animations, ``[(obj, path), ...]``, all or nothing: each
    encoded first (a bad record stops before any file is touched), then written as
    :func:`~io_alamo.formats.saving.write_all` writes (refusing folders, read-only files and
    missing folders; a failure leaves every target as it was).

    Nothing is written when the game's loaders would refuse one of the files
    (:class:`~.game_rules.GameRefusedError`; an animation is matched against the model
    written with it, else the one beside it), except a file that is byte for byte one of
    ``keep`` (the files it was imported from: writing one back unedited changes nothing).
    ``game_check=False`` writes refused files too (tests that build broken input)."""
    encoded = [(encode(obj), os.fspath(path)) for obj, path in items]
    if game_check:
        kept = {bytes(k) for k in keep if k is not None}
        refused = [(p, r) for p, r in game_refusals(encoded) + particle_refusals(encoded)
                   if not kept or next(d for d, q in encoded if q == p) not in kept]
        if refused:
            raise GameRefusedError(refused)
    write_all(encoded)
