"""The format layer: every engine's files read and written without Blender (stdlib +
numpy), one subpackage per engine (``alamo``, ``alithia``, ``alod``, ``arma``) and what they
share (``errors``, ``kinds``)."""
