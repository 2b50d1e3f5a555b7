"""The format layer: every engine's model files read (and, where io_alamo writes them,
written) without Blender, stdlib + numpy only. One subpackage per engine: ``alamo``
(Petroglyph .alo models and .ala animations), ``alithia`` (ALM1 .alm), ``alod`` (ALOD .alm),
``arma`` (binarized .p3d). What they share is neutral: ``errors`` (the one error type),
``files`` (reading a file, size cap) and ``registry`` (one entry per format: magic,
extensions, reader, writer, describe/validate/roundtrip, Blender operator names)."""
