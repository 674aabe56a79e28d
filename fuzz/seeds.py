"""Writes the fuzz seed corpora (fuzz/corpus/<target>/) from the repository's byte fixtures
and ClickHouse 26.9's own Native output (chdb, the oracle venv), and the dictionaries.

    build/oracle-venv/bin/python fuzz/seeds.py [proto|formats]

The native_column seeds are cut from the Native files by the Rust replay test
(`cargo test -p chwire-proto --test fuzz_corpus -- --ignored write_column_seeds`).
"""
import hashlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = os.path.join(ROOT, "fuzz")
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))


def put(target, data):
    d = os.path.join(FUZZ, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


def packet_seeds(folder, rev):
    """The fixtures of tests/fixtures/<folder> as packets seeds at revision index `rev` (bits
    0-1 and 6 of the selector): whole, and cut in half in 1-byte slices; chunked_ ones
    chunk-framed (bit 7). Yields (name, selector without the slice bits, data)."""
    fixtures = os.path.join(ROOT, "crates", "chwire-proto", "tests", "fixtures", folder)
    for name in sorted(os.listdir(fixtures)):
        if not name.endswith(".bin"):
            continue
        data = open(os.path.join(fixtures, name), "rb").read()
        sel = rev | (4 if ("lz4" in name or "zstd" in name) else 0) | (128 if name.startswith("chunked_") else 0)
        put("packets", bytes([sel]) + data)
        put("packets", bytes([sel | (0 << 3)]) + data[: len(data) // 2])
        put("packets", bytes([sel | (2 << 3)]) + data)
        yield name, sel, data


def packets():
    # Revision 54412 (ClickHouse 18.16, which recorded them).
    for _ in packet_seeds("packets", 0):
        pass
    # ClickHouse 26.9's conversations (revision 54492, index 3), and those that carry data also
    # at the live matrix's older revisions (bit 6 + index 0-2).
    for name, sel, data in packet_seeds("packets26", 3):
        if name in ("sparse.bin", "replicated.bin", "dynamic_json.bin", "strings.bin"):
            for older in (64, 64 | 1, 64 | 2):
                put("packets", bytes([older | (sel & 4) | (2 << 3)]) + data)


def native_files():
    import chdb
    import cases

    db = chdb.connect(":memory:")
    n = 0
    for name, sql in cases.CASES:
        try:
            data = db.query(sql, "Native").bytes()
        except Exception:
            continue
        if 0 < len(data) <= 16384:
            put("native_file", data)
            n += 1
    return n


def type_names():
    import cases

    seen = set()
    for name, sql in cases.CASES:
        pass
    names = set()
    # The types of the oracle's columns come from the Native files (column headers).
    d = os.path.join(FUZZ, "corpus", "native_file")
    for f in os.listdir(d):
        data = open(os.path.join(d, f), "rb").read()
        names.update(header_types(data))
    for t in sorted(names):
        put("type_name", t.encode())
        # Binary values: a NULL (type Nothing = 0x00) and the empty value list.
    return sorted(names)


def varint(data, pos):
    x = shift = 0
    while True:
        b = data[pos]
        pos += 1
        x |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return x, pos


def header_types(data):
    """The type names of the first block's columns (the data is skipped by giving up after
    the first column: its size depends on the type)."""
    try:
        ncols, pos = varint(data, 0)
        rows, pos = varint(data, pos)
        if ncols == 0:
            return []
        n, pos = varint(data, pos)
        pos += n
        n, pos = varint(data, pos)
        return [data[pos : pos + n].decode()]
    except (IndexError, UnicodeDecodeError):
        return []


def frames():
    for sel, payload in [(0, b""), (1, b"hello"), (2, b"a" * 1000), (3, bytes(range(256)) * 4)]:
        put("frames", bytes([sel]) + payload)
    fixtures = os.path.join(ROOT, "crates", "chwire-proto", "tests", "fixtures", "packets")
    # Raw frames: the compressed fixtures hold LZ4/ZSTD frames after their packet headers.
    for name in ["select_lz4_multiframe.bin", "select_zstd.bin"]:
        data = open(os.path.join(fixtures, name), "rb").read()
        put("frames", b"\x00" + data)


def binary_values():
    # (type, value) pairs as ClickHouse 26.9 writes them into Dynamic's SharedVariant.
    vals = [
        b"\x00",                      # NULL (Nothing)
        b"\x01\x07",                  # UInt8 7
        b"\x15\x03abc",              # String "abc"
        b"\x1e\x01\x01\x05",          # Array(UInt8) [5]
        b"\x1f\x02\x01\x15\x2a\x01x",  # Tuple(UInt8, String)
    ]
    put("binary_values", b"".join(bytes([len(v)]) + v for v in vals))
    for v in vals:
        put("binary_values", bytes([len(v)]) + v)


def dict_escape(b):
    """A libFuzzer dictionary entry: printable ASCII as is, other bytes as \\xNN."""
    return "".join(chr(c) if 32 <= c < 127 and c not in (34, 92) else f"\\x{c:02x}" for c in b)


def dictionaries(types):
    with open(os.path.join(FUZZ, "dict", "types.dict"), "w") as f:
        words = set(types)
        for t in types:
            for w in t.replace("(", " ").replace(")", " ").replace(",", " ").split():
                words.add(w)
        for w in ["Nullable(", "Array(", "LowCardinality(", "Map(", "Tuple(", "Variant(", "Dynamic", "JSON(",
                  "AggregateFunction(", "SimpleAggregateFunction(", "Nested(", "Enum8(", "Enum16(", "DateTime64(",
                  "Decimal(", "FixedString(", "QBit(", "max_types = ", "max_dynamic_paths = ", "SKIP ", "'UTC'", ")", ", "]:
            words.add(w)
        for w in sorted(words):
            f.write('"' + dict_escape(w.encode()) + '"\n')
    with open(os.path.join(FUZZ, "dict", "packets.dict"), "w") as f:
        # Server packet ids (VarUInt), compression methods, block info fields, common types.
        for i in range(0, 16):
            f.write(f'"\\x{i:02x}"\n')
        for m in [0x02, 0x82, 0x90]:
            f.write(f'"\\x{m:02x}"\n')
        f.write('"\\x01\\x00\\x02\\xff\\xff\\xff\\xff\\x00"\n')  # BlockInfo
        for t in ["UInt64", "String", "Nullable(String)", "Array(UInt8)", "LowCardinality(String)", "DateTime"]:
            f.write('"' + chr(len(t)).encode().decode("latin1").replace("\\", "\\\\") + t + '"\n' if len(t) >= 32 else f'"\\x{len(t):02x}{t}"\n')


# The text_input target's formats and structures (fuzz/src/formats.rs: TEXT_FORMATS, STRUCTURES).
TEXT_FORMATS = ["CSV", "CSVWithNames", "TSV", "TSVWithNames", "JSONEachRow"]
# ... and the formats with a types line, by format bytes from 240 (NAMES_AND_TYPES).
NAMES_AND_TYPES = [(240, "CSVWithNamesAndTypes"), (241, "TSVWithNamesAndTypes")]
STRUCTURES = [
    "a UInt64, b String",
    "n Nullable(Int32), f Float64, d Date",
    "t DateTime('UTC'), t64 DateTime64(3, 'Asia/Tokyo'), e Enum8('a' = 1, 'b' = 2)",
    "arr Array(Nullable(String)), m Map(String, UInt16)",
    "tu Tuple(UInt8, String), lc LowCardinality(String), u UUID",
    "ip IPv4, ip6 IPv6, dec Decimal(18, 4), b Bool",
    "fs FixedString(4), i128 Int128, f32 Float32, d32 Date32",
    "nested Array(Tuple(a Int8, b Array(Nullable(Float64)))), lcn LowCardinality(Nullable(String))",
]


def file_formats():
    """ClickHouse 26.9's own CSV/TSV/JSONEachRow and Arrow/ArrowStream/Parquet output of random
    rows of each structure (generateRandom), framed for text_input and arrow_input, and the
    native_column seeds again for arrow_round_trip (both mappings)."""
    import chdb

    db = chdb.connect(":memory:")
    for si, structure in enumerate(STRUCTURES):
        for rows, seed in [(3, 1), (12, 2)]:
            quoted = structure.replace("'", "\\'")
            q = f"SELECT * FROM generateRandom('{quoted}', {seed}, 8, 3) LIMIT {rows}"
            for fi, fmt in list(enumerate(TEXT_FORMATS)) + NAMES_AND_TYPES:
                put("text_input", bytes([fi, si]) + db.query(q, fmt).bytes())
            for ai, fmt in enumerate(["Arrow", "ArrowStream", "Parquet"]):
                try:
                    data = db.query(q, fmt).bytes()
                except Exception:
                    continue
                if len(data) <= 65536:
                    put("arrow_input", bytes([ai]) + data)
    d = os.path.join(FUZZ, "corpus", "native_column")
    for n, name in enumerate(sorted(os.listdir(d))):
        data = open(os.path.join(d, name), "rb").read()
        # The type byte (an index into TYPES), rows (2 bytes), flags; bit 1 of the flags
        # picks the ClickHouse mapping (every other seed).
        if data[0] >= 0x80 or not 4 <= len(data) <= 4096:
            continue
        put("arrow_round_trip", data[:3] + bytes([2 * (n % 2)]) + data[4:])


if __name__ == "__main__":
    only = sys.argv[1:]
    if not only or "proto" in only:
        packets()
        print("native files:", native_files())
        types = type_names()
        frames()
        binary_values()
        dictionaries(types)
    if not only or "formats" in only:
        file_formats()
    for t in sorted(os.listdir(os.path.join(FUZZ, "corpus"))):
        print(t, len(os.listdir(os.path.join(FUZZ, "corpus", t))))
