"""Every ``python`` block of the README that uses chwire alone runs as written, against the
test server (its URL replaces the rig's default one). The Spark block runs in spark/tests."""
import re

from conftest import ROOT, URL

RIG_URL = "tcp://default@127.0.0.1:19000/default"


def blocks():
    text = (ROOT / "README.md").read_text()
    return [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "spark" not in b]


def test_the_readme_has_python_blocks():
    assert blocks(), "README.md lost its Python examples"


def test_every_python_block_runs_as_written(client):
    for code in blocks():
        assert RIG_URL in code, "a README block connects somewhere else than the rig"
        client.command("DROP TABLE IF EXISTS my_table")
        scope = {}
        exec(compile(code.replace(RIG_URL, URL), "README.md", "exec"), scope)
        if "table" in scope:
            assert scope["table"].num_rows == 1_000_000
            assert client.query_arrow("SELECT count() AS n FROM my_table")["n"][0].as_py() == 1_000_000
    client.command("DROP TABLE IF EXISTS my_table")
