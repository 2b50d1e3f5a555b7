"""Mutated files: only AlamoFormatError may come out, quickly, without large allocations.
(A short run; the long-running fuzz harness belongs to the robustness work.)"""

import tracemalloc

import specbuild as sb
from corpus import corpus_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from io_alamo.formats.alamo import AlamoFormatError, Animation, decode_animation, read_any
from io_alamo.formats.alamo.files import encode
from io_alamo.formats.alamo.validate import validate

SEEDS = [getattr(sb, n)()[0] for n in sb.ALL_FIXTURES]
SEEDS += [p.read_bytes() for p in corpus_files(".alo", ".ala") if p.stat().st_size < 40_000]

EXTREMES = [b"\xff\xff\xff\x7f", b"\xff\xff\xff\xff", b"\0\0\0\0", b"\x01\0\0\x80", b"\xff\xff\0\0"]


@st.composite
def mutated(draw):
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 4))
        i = draw(st.integers(0, len(data) - 1))
        if kind == 0:
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif kind == 1:
            data = data[:i]
        elif kind == 2:
            data[i:i + 4] = draw(st.sampled_from(EXTREMES))
        elif kind == 3:
            j = draw(st.integers(0, len(data) - 1))
            data = data[:i] + data[j:j + draw(st.integers(1, 64))] + data[i:]
        else:
            data[i] = 0 if data[i] else 0x41
        if not data:
            break
    return bytes(data)


def consume(data):
    obj = read_any(data, filename="fuzz.alo")
    validate(obj)
    if isinstance(obj, Animation):
        decode_animation(obj)
    encode(obj)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_files_give_only_the_format_error(data):
    tracemalloc.start()
    try:
        consume(data)
    except AlamoFormatError as e:
        assert e.filename == "fuzz.alo"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    # decoded arrays may legitimately be a few times the file; never gigabytes
    assert peak < 40 * len(data) + 4_000_000
