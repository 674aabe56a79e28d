"""chwire.dbapi: PEP 249 plus ADBC's Arrow fetches; pandas and Polars read through it."""

import datetime as dt

import pandas as pd
import polars as pl
import pytest

import chwire
from chwire import dbapi


def test_module_globals():
    assert dbapi.apilevel == "2.0" and dbapi.paramstyle == "pyformat" and dbapi.threadsafety == 1
    for name in ("Error", "Warning", "InterfaceError", "DatabaseError", "DataError", "OperationalError",
                 "IntegrityError", "InternalError", "ProgrammingError", "NotSupportedError"):
        assert issubclass(getattr(dbapi, name), Exception)
    assert issubclass(dbapi.ProgrammingError, dbapi.DatabaseError) and issubclass(dbapi.DatabaseError, dbapi.Error)


def test_cursor_fetch(url):
    with dbapi.connect(url) as conn:
        cur = conn.cursor()
        cur.execute("SELECT number AS n, toString(number) AS s FROM numbers(10) WHERE number < %(lim)s", {"lim": 5})
        assert [d[0] for d in cur.description] == ["n", "s"] and cur.description[0][1] == "UInt64"
        assert cur.rowcount == 5
        assert cur.fetchone() == (0, "0")
        assert cur.fetchmany(2) == [(1, "1"), (2, "2")]
        assert cur.fetchall() == [(3, "3"), (4, "4")]
        assert cur.fetchone() is None
        cur.execute("SELECT %s + 1 AS x, %s AS s, %s AS d, %s AS nul", (41, "it's", dt.date(2020, 1, 2), None))
        assert cur.fetchall() == [(42, "it's", dt.date(2020, 1, 2), None)]
        cur.execute("SELECT {v:String} AS v", {"v": "native placeholder"})
        assert cur.fetchone() == ("native placeholder",)
        cur.execute("SELECT number FROM system.numbers LIMIT 10")
        cur.fetchone()
        t = cur.fetch_arrow_table()
        assert t.num_rows == 9 and t.column(0).to_pylist()[0] == 1
        cur.execute("SELECT number FROM system.numbers LIMIT 10")
        assert cur.fetch_record_batch().read_all().num_rows == 10
        with pytest.raises(dbapi.ProgrammingError):
            cur.execute("SELECT * FROM nope_nope")
        with pytest.raises(dbapi.NotSupportedError):
            conn.rollback()
    with pytest.raises(dbapi.InterfaceError):
        conn.cursor()


def test_executemany_insert(url, table):
    with dbapi.connect(url) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {table} (a UInt32, b String) ENGINE = Memory")
        cur.executemany(f"INSERT INTO {table} (a, b) VALUES", [(1, "x"), (2, "y")])
        assert cur.rowcount == 2
        cur.execute(f"SELECT * FROM {table} ORDER BY a")
        assert cur.fetchall() == [(1, "x"), (2, "y")]


def test_executemany_reads_mappings_by_name(url, table):
    with dbapi.connect(url) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {table} (first String, last String) ENGINE = Memory")
        # The mappings' own order is not the columns' order.
        cur.executemany(f"INSERT INTO {table} (first, last) VALUES (%(first)s, %(last)s)", [{"last": "Lovelace", "first": "Ada"}])
        cur.executemany(f"INSERT INTO {table} (last, first) VALUES (%(last)s, %(first)s)", [{"first": "Grace", "last": "Hopper"}])
        cur.executemany(f"INSERT INTO {table} (first, last) VALUES", [{"last": "Germain", "first": "Sophie"}])
        cur.executemany(f"INSERT INTO {table} VALUES", [{"last": "Noether", "first": "Emmy"}])  # the keys name the columns
        cur.execute(f"SELECT first, last FROM {table} ORDER BY first")
        assert cur.fetchall() == [("Ada", "Lovelace"), ("Emmy", "Noether"), ("Grace", "Hopper"), ("Sophie", "Germain")]
        with pytest.raises(dbapi.ProgrammingError, match=r"row 1 has no value for \['last'\]"):
            cur.executemany(f"INSERT INTO {table} (first, last) VALUES", [{"first": "a", "last": "b"}, {"first": "c"}])


def test_pep249_module_surface_and_parameter_binding(url, table):
    assert dbapi.NUMBER == "Nullable(UInt64)" and dbapi.STRING == "LowCardinality(String)"
    assert dbapi.DATETIME == "DateTime('UTC')" and dbapi.NUMBER != "String"
    assert dbapi.Date(2020, 1, 2) == dt.date(2020, 1, 2) and dbapi.Binary(b"x") == b"x"
    assert isinstance(dbapi.TimestampFromTicks(0), dt.datetime) and isinstance(dbapi.DateFromTicks(0), dt.date)
    with dbapi.connect(url) as conn:
        cur = conn.cursor()
        cur.execute("SELECT number AS n, toString(number) AS s FROM system.numbers LIMIT 1")
        assert [d[1] for d in cur.description] == ["UInt64", "String"] and cur.description[0][1] == dbapi.NUMBER
        # A list's type covers every element (ints among floats are floats; NULLs make it Nullable).
        cur.execute("SELECT %s, %s", ([1, 2.5], [None, "a"]))
        assert cur.fetchall() == [([1.0, 2.5], [None, "a"])]
        with pytest.raises(dbapi.ProgrammingError, match="different types"):
            cur.execute("SELECT %s", (["a", 1],))
        with pytest.raises(dbapi.ProgrammingError, match="2 parameters for 1"):
            cur.execute("SELECT %s", (1, 2))
        # Inside quotes %s is text and %% is %.
        cur.execute("SELECT '%s', %s, 'a%%'", (7,))
        assert cur.fetchall() == [("%s", 7, "a%")]
        # So it is inside comments: one placeholder below, not three.
        cur.execute("SELECT %s -- not %s\n /* nor %s */", (8,))
        assert cur.fetchall() == [(8,)]
        # Strings, quoted names and comments as ClickHouse's lexer reads them (the core's):
        # heredocs, doubled quotes, `#` comments.
        cur.execute("SELECT $$%s$$, 'it''s %s', %s AS `%s` # nor %s\n", (9,))
        assert cur.fetchall() == [("%s", "it's %s", 9)]
        cur.execute(f"CREATE TABLE {table} (a UInt8) ENGINE = Memory")
        assert cur.rowcount == -1


def test_executemany_keeps_the_statements_settings_and_reads_nested_columns(url, table):
    with dbapi.connect(url) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {table} (a UInt32, n Nested(x UInt8, y String)) ENGINE = Memory")
        cur.executemany(f"INSERT INTO {table} (a, n.x, n.y) VALUES (%s, %s, %s)", [(1, [1, 2], ["p", "q"])])
        assert cur.rowcount == 1  # one block insert (one statement per row counts none)
        cur.execute(f"SELECT a, n.x, n.y FROM {table}")
        assert cur.fetchall() == [(1, [1, 2], ["p", "q"])]
        # The statement's settings go with the block: a value the server refuses shows they do.
        with pytest.raises(dbapi.DatabaseError, match="'many'"):
            cur.executemany(f"INSERT INTO {table} (a) SETTINGS max_threads = 'many' VALUES (%s)", [(2,)])


def test_executemany_is_one_block_insert_only_for_placeholders(url, table):
    with dbapi.connect(url) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {table} (a UInt32, `values` String) ENGINE = Memory")
        # A literal beside the placeholders: one statement per row (a block insert would
        # have dropped it).
        cur.executemany(f"INSERT INTO {table} (a, `values`) VALUES (%s, 'lit')", [(1,), (2,)])
        # A column named like the keyword, settings before VALUES, the table quoted.
        cur.executemany(f"INSERT INTO `{table}` (`values`, a) SETTINGS max_threads = 1 VALUES (%s, %s)", [("x", 3)])
        assert cur.rowcount == 1
        cur.execute(f"SELECT a, `values` FROM {table} ORDER BY a")
        assert cur.fetchall() == [(1, "lit"), (2, "lit"), (3, "x")]
        # No VALUES: not a block insert; the statement goes as written, and is refused.
        for sql in (f"INSERT INTO {table} (a)", f"INSERT INTO {table} SETTINGS max_threads = 1"):
            with pytest.raises(dbapi.Error):
                cur.executemany(sql, [(9,)])
        cur.execute(f"SELECT count() FROM {table}")
        assert cur.fetchall() == [(3,)]


def test_polars_and_pandas_read_through_dbapi(url):
    with dbapi.connect(url) as conn:
        df = pl.read_database("SELECT number AS n FROM system.numbers LIMIT 100", conn)
        assert df.shape == (100, 1) and df["n"].sum() == 4950
        with pytest.warns(UserWarning):  # pandas warns about non-SQLAlchemy connections, then reads
            pdf = pd.read_sql("SELECT number AS n, toString(number) AS s FROM system.numbers LIMIT 100", conn)
        assert list(pdf.columns) == ["n", "s"] and pdf["n"].sum() == 4950


def test_fetchmany_refuses_a_negative_size(url):
    with chwire.dbapi.connect(url) as conn:
        cur = conn.cursor()
        cur.execute("SELECT number FROM system.numbers LIMIT 3")
        with pytest.raises(chwire.dbapi.ProgrammingError):
            cur.fetchmany(-1)
        assert cur.fetchmany(2) == [(0,), (1,)] and cur.fetchall() == [(2,)]


def test_dates_and_times_beyond_date_and_datetime_are_bound_wider_not_clamped(url):
    """Date holds 1970-2149 and DateTime 1970-2106: values outside are bound as Date32 and
    DateTime64 (the server would clamp them to the edges); beyond those too, a DataError."""
    utc = dt.timezone.utc
    values = [dt.date(1900, 1, 1), dt.date(2200, 1, 1), dt.date(2020, 5, 6),
              dt.datetime(1960, 1, 1), dt.datetime(2200, 1, 1, 12), dt.datetime(2020, 1, 1, 0, 0, 1),
              dt.datetime(1950, 6, 1, tzinfo=utc)]
    with dbapi.connect(url) as conn:
        cur = conn.cursor()
        cur.execute("SELECT " + ", ".join(["%s"] * len(values)), values)
        got = cur.fetchall()[0]
        # DateTime columns come back in the server's zone (UTC on the rig).
        naive = [g.replace(tzinfo=None) if isinstance(g, dt.datetime) else g for g in got]
        assert naive[:6] == values[:6]
        assert got[6] == values[6]
        # A list of dates on both sides of 1970 is one Date32 array.
        cur.execute("SELECT %s", ([dt.date(2000, 1, 1), dt.date(1901, 2, 3)],))
        assert cur.fetchall() == [([dt.date(2000, 1, 1), dt.date(1901, 2, 3)],)]
        for bad in (dt.date(1800, 1, 1), dt.datetime(2400, 1, 1)):
            with pytest.raises(dbapi.DataError, match="outside what ClickHouse stores"):
                cur.execute("SELECT %s", (bad,))


def test_integers_beyond_256_bits_are_refused_not_wrapped(url):
    with dbapi.connect(url) as conn:
        cur = conn.cursor()
        cur.execute("SELECT %s, %s", (2**256 - 1, -(2**255)))
        assert cur.fetchall() == [(2**256 - 1, -(2**255))]
        for bad in (2**300, 2**256, -(2**255) - 1):
            with pytest.raises(dbapi.DataError, match="Int256 and UInt256"):
                cur.execute("SELECT %s", (bad,))

