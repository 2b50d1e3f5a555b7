"""The Alithia engine's ALM1 morph-animated models (read and write)."""
