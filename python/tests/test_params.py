"""Parameters of every composite nesting, against the live servers: on 26.9 each value travels
as a server-side parameter, whose text the server reads with the placeholder type's own text
parser (arrays ``[..]``, tuples ``(..)``, maps ``{k:v}``, strings quoted, numbers and decimals
bare, at every depth); on 18.16 chwire binds it as a typed ``CAST(literal AS Type)``. Rendered
without the type, a nested tuple was sent as ``[tuple(1,'a')]`` (code 27), a map inside a tuple
as ``map('k',2)`` and decimals inside composites quoted (``['1.5']``, code 130)."""

import datetime as dt
import decimal
import ipaddress
import uuid

import pytest

import chwire

D = decimal.Decimal
UTC = dt.timezone.utc

# (placeholder type, value, the row value it comes back as (None: the value itself), whether
# 18.16 has the type).
CASES = [
    ("Array(Tuple(UInt8, String))", [(1, "a"), (2, "b'c\\d")], None, True),
    ("Array(Tuple(UInt8, Nullable(String)))", [(1, "x"), (2, None)], None, True),
    ("Array(Array(Tuple(String, Array(UInt8))))", [[("a", [1, 2])], []], None, True),
    ("Tuple(UInt8, Tuple(String, Tuple(Float64)))", (1, ("a", (2.5,))), None, True),
    ("Tuple(String)", ("x",), None, True),
    ("Tuple(Nullable(UInt8), Array(Nullable(String)))", (None, [None, "x'"]), None, True),
    ("Array(Decimal(9, 2))", [D("1.5"), D("-2.25")], [D("1.50"), D("-2.25")], True),
    ("Array(Nullable(Decimal(9, 2)))", [D("1.5"), None], [D("1.50"), None], True),
    ("Tuple(Decimal(18, 4), String)", (D("-12.3456"), "x"), None, True),
    ("Array(Decimal(38, 10))", [D("100000000000000000000.0000000001")], None, True),
    ("Array(String)", ["a'b", "c\\d", "t\tn\n", "{x}", "]", "'),('"], None, True),
    ("Array(Date)", [dt.date(2020, 1, 2)], None, True),
    ("Array(DateTime)", [dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC)], None, True),
    ("Array(UUID)", [uuid.UUID("61f0c404-5cb3-11e7-907b-a6006ad3dba0")], None, True),
    ("Array(Enum8('a' = 1, 'b' = 2))", ["a", "b"], None, True),
    ("Array(LowCardinality(String))", ["a"], None, True),
    ("Array(Float32)", [0.5, float("inf")], None, True),
    ("Array(FixedString(2))", ["ab"], [b"ab"], True),
    ("Nested(a UInt8, b String)", [(1, "x")], None, True),
    ("Tuple(UInt8, Map(String, UInt8))", (1, {"k": 2}), None, False),
    ("Map(String, Tuple(UInt8, String))", {"k": (1, "a")}, None, False),
    ("Map(String, Array(Decimal(9, 2)))", {"a": [D("1.5")]}, {"a": [D("1.50")]}, False),
    ("Map(String, Map(String, UInt8))", {"a": {"b": 1}}, None, False),
    ("Map(UInt8, String)", {1: "a"}, None, False),
    ("Tuple(UInt8, Array(Map(String, Decimal(9, 2))))", (1, [{"x": D("0.01")}]), None, False),
    ("Tuple(a UInt8, b String)", (1, "x"), None, False),
    ("Array(Tuple(Int128, UInt256))", [(-(2**127), 2**256 - 1)], None, False),
    ("UInt256", 2**256 - 1, None, False),
    ("Array(IPv4)", [ipaddress.IPv4Address("1.2.3.4")], None, False),
    ("Array(IPv6)", [ipaddress.IPv6Address("::1")], None, False),
    ("Array(Bool)", [True, False], None, False),
    ("Array(Nullable(Bool))", [True, None], None, False),
    ("Array(Date32)", [dt.date(1900, 1, 1)], None, False),
    ("Array(DateTime64(3))", [dt.datetime(2020, 1, 2, 3, 4, 5, 123000, tzinfo=UTC)], None, False),
    ("Point", (1.5, 2.5), None, False),
    ("Ring", [(1.5, 2.5), (3.0, 4.0)], None, False),
]


@pytest.mark.parametrize("ty, value, expected, on_18", CASES, ids=[c[0] for c in CASES])
def test_composite_parameters_of_every_nesting(any_client, old_server, ty, value, expected, on_18):
    if old_server(any_client) and not on_18:
        pytest.skip(f"18.16 has no {ty}")
    r = any_client.query(f"SELECT {{p:{ty}}} AS p, toTypeName(p) AS t", parameters={"p": value})
    got, type_name = r.result_rows[0]
    assert got == (value if expected is None else expected)
    assert type_name.replace(" ", "").replace("\n", "") == ty.replace(" ", "") or ty.startswith(("Nested", "Point", "Ring"))


def test_numbers_are_checked_before_they_go_bare(client):
    """A decimal goes bare inside a composite; text that is no number is refused before
    anything is sent (an older server cast it to 0), so that no string can change the value's
    structure."""
    assert client.command("SELECT {p:Array(Decimal(9, 2))}", parameters={"p": ["1.5", "-2e1"]}) == [D("1.50"), D("-20.00")]
    with pytest.raises(TypeError, match="is not a number"):
        client.command("SELECT {p:Array(Decimal(9, 2))}", parameters={"p": ["1], [2"]})
    with pytest.raises(TypeError, match="is not a number"):
        client.command("SELECT {p:Array(UInt8)}", parameters={"p": ["1,2"]})
    assert client.command("SELECT {p:UInt8}", parameters={"p": 7}) == 7


def test_dbapi_lists_of_decimals_and_tuples(any_client):
    """The DB-API binds a list as an Array of its elements' type: decimals inside it too."""
    from chwire import dbapi

    conn = dbapi.Connection(any_client)
    cur = conn.cursor()
    cur.execute("SELECT %(d)s AS d, %(n)s AS n", {"d": [D("1.5"), D("-0.25")], "n": [1, None]})
    assert cur.fetchall() == [([D("1.50"), D("-0.25")], [1, None])]


def test_datetime_parameters_are_the_instant_in_the_servers_zone(kolkata_url):
    """The server reads a DateTime parameter as a wall-clock time in the placeholder's zone,
    else its own: an aware datetime is that instant, a naive one is taken as UTC (as insert
    takes it). Written as UTC text, both came 5:30 early from a server in Asia/Kolkata."""
    from chwire import dbapi

    naive = dt.datetime(2020, 1, 2, 3, 4, 5)
    instant = int(naive.replace(tzinfo=UTC).timestamp())
    aware = naive.replace(tzinfo=UTC).astimezone(dt.timezone(dt.timedelta(hours=9)))
    with chwire.connect(kolkata_url) as c:
        assert c.server_info["timezone"] == "Asia/Kolkata"
        for ty in ["DateTime", "DateTime('UTC')", "DateTime('America/New_York')", "DateTime64(3)", "Nullable(DateTime)"]:
            for v in (naive, aware):
                got = c.command(f"SELECT toUnixTimestamp({{p:{ty}}})", parameters={"p": v})
                assert got == instant, (ty, v)
        assert c.command("SELECT toUnixTimestamp64Milli({p:DateTime64(3)})",
                         parameters={"p": naive.replace(microsecond=123000)}) == instant * 1000 + 123
        assert c.command("SELECT arrayMap(t -> toUnixTimestamp(t), {p:Array(DateTime)})", parameters={"p": [naive, aware]}) == [
            instant, instant]
        assert c.command("SELECT toUnixTimestamp(({p:Tuple(DateTime, String)}).1)", parameters={"p": (aware, "x")}) == instant
        # A session_timezone (the query's or the connection's) is the zone DateTime text is read in.
        assert c.command("SELECT toUnixTimestamp({p:DateTime})", parameters={"p": aware},
                         settings={"session_timezone": "Asia/Tokyo"}) == instant
        with chwire.connect(kolkata_url, session_timezone="America/New_York") as ny:
            assert ny.command("SELECT (timezone(), toUnixTimestamp({p:DateTime}))", parameters={"p": naive}) == (
                "America/New_York", instant)
        # A String placeholder gets the UTC text.
        assert c.command("SELECT {p:String}", parameters={"p": aware}) == "2020-01-02 03:04:05"
        # The DB-API types a naive datetime as DateTime, an aware one as DateTime('UTC').
        cur = dbapi.Connection(c).cursor()
        cur.execute("SELECT toUnixTimestamp(%(a)s), toUnixTimestamp(%(b)s)", {"a": naive, "b": aware})
        assert cur.fetchone() == (instant, instant)
