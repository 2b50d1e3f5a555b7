"""A format declared in one place (the toy engine in tests/toy) shows up everywhere the
registry is asked: identify, the command line's verbs and help, the batch's inputs."""

from toyengine import TOY_FILE, toy_engine

from io_alamo.batch.jobs import verb_extensions
from io_alamo.cli import build_parser, main
from io_alamo.formats import registry


def test_a_declared_format_is_identified_and_listed_after_the_engines_before_meg():
    with toy_engine():
        keys = [f.key for f in registry.FORMATS]
        assert registry.identify(TOY_FILE).key == "toy"
        assert keys.index("toy") < keys.index("meg")     # order 0 before MEG's 90
        assert registry.by_key("toy").import_menu == "File > Import > Toy Model (.toy)"
    assert "toy" not in [f.key for f in registry.FORMATS]


def test_the_command_line_reads_a_declared_format(tmp_path, capsys):
    p = tmp_path / "x.toy"
    p.write_bytes(TOY_FILE)
    with toy_engine():
        assert main(["info", str(p)]) == 0
        assert main(["validate", str(p)]) == 0
        assert main(["roundtrip", str(p)]) == 0
        assert "a toy model (.toy)" in build_parser("io-alamo").format_help()
        out = capsys.readouterr().out
        assert "a toy with 2 values" in out and f"{p}: ok" in out and f"{p}: identical" in out
        assert main(["dump", str(p)]) == 1          # no dump declared: refused in one line
        assert "dump works on Alamo .alo/.ala files only" in capsys.readouterr().err
    assert main(["info", str(p)]) == 1              # without the toy engine: not read


def test_the_batch_takes_a_declared_formats_files():
    with toy_engine():
        assert ".toy" in verb_extensions("import") and ".alo" in verb_extensions("import")
        assert ".toy" not in verb_extensions("roundtrip")
    assert ".toy" not in verb_extensions("import")
