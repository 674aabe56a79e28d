"""chwire's ADBC driver (Arrow Database Connectivity) for Python's ADBC driver manager.

    import chwire.adbc
    with chwire.adbc.connect("tcp://default@localhost:9000/default") as conn:
        with conn.cursor() as cur:
            cur.execute("SELECT number FROM system.numbers LIMIT {n:UInt64}", {"n": 10})
            table = cur.fetch_arrow_table()
            cur.adbc_ingest("t", table, mode="create_append")

    import polars as pl
    df = pl.read_database("SELECT ...", conn)
    df.write_database("t", conn, engine="adbc", if_table_exists="append")

The driver (the Rust crate crates/chwire-adbc) is linked into this package's compiled module
``chwire._chwire``, whose shared object exports the driver's ADBC entrypoints: every build of
the package carries it (``pip install`` included), and ``driver_path()`` gives that file's path
for the manager. Other runtimes (Go, Java, R, C) load the crate's own library,
``libadbc_driver_chwire.so``. ``adbc-driver-manager`` (PyPI) is needed for ``connect``; chwire
does not depend on it otherwise. See docs/ADBC.md.
"""

import os
import pathlib
import sys
from typing import Any, Mapping, Optional

__all__ = ["connect", "driver_path", "write_manifest", "ENTRYPOINT", "LIBRARY"]

#: The driver's init function (driver managers derive it from the library's name too; the
#: compiled module's name says nothing, so chwire always names it).
ENTRYPOINT = "AdbcDriverChwireInit"

#: The file name of the standalone driver library the Rust crate builds for other runtimes
#: (``cargo build --release -p chwire-adbc``); Python's manager uses ``driver_path()``.
if sys.platform == "win32":
    LIBRARY = "adbc_driver_chwire.dll"
elif sys.platform == "darwin":
    LIBRARY = "libadbc_driver_chwire.dylib"
else:
    LIBRARY = "libadbc_driver_chwire.so"

#: Database options that are ADBC's own; any other keyword is one of chwire's URL options.
_ADBC_KEYS = {"uri", "username", "password"}


def driver_path() -> str:
    """The path of the ADBC driver library: ``$CHWIRE_ADBC_DRIVER`` if set, else this
    package's compiled module (``chwire/_chwire.*.so``), which exports the driver's
    entrypoints. A driver manager in a Python process loads it by this path; a manager in a
    process without Python cannot (the module needs the interpreter's symbols): use the
    standalone ``LIBRARY`` there."""
    env = os.environ.get("CHWIRE_ADBC_DRIVER")
    if env:
        return env
    from . import _chwire

    return str(pathlib.Path(_chwire.__file__).resolve())


def write_manifest(directory, name: str = "chwire", shared=None) -> pathlib.Path:
    """Write an ADBC driver manifest ``<name>.toml`` into ``directory`` and return its path.
    Driver managers that search ``directory`` (e.g. in ``ADBC_DRIVER_PATH``, or the user's
    ``~/.config/adbc/drivers``) then load the driver by name:
    ``adbc_driver_manager.dbapi.connect(driver="chwire", uri=...)``. The manifest names
    ``shared``, by default ``driver_path()`` (this package's module, for managers in Python
    processes); for Go's ``drivermgr``, Java, R or C give the path of the standalone
    ``libadbc_driver_chwire.so``."""
    import json

    from . import __version__

    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.toml"
    # TOML basic strings escape as JSON strings do.
    path.write_text(
        "manifest_version = 1\n"
        f"name = {json.dumps('chwire (ClickHouse, native protocol)')}\n"
        f"version = {json.dumps(__version__)}\n"
        "\n[ADBC]\nversion = \"1.1.0\"\n"
        f"\n[Driver]\nentrypoint = {json.dumps(ENTRYPOINT)}\nshared = {json.dumps(str(shared) if shared is not None else driver_path())}\n"
    )
    return path


def _db_kwargs(db_kwargs: Mapping[str, Any]) -> dict:
    out = {}
    for k, v in db_kwargs.items():
        if v is None:
            continue
        if isinstance(v, bool):
            v = "true" if v else "false"
        key = k if (k in _ADBC_KEYS or "." in k) else f"chwire.{k}"
        out[key] = str(v)
    return out


def connect(
    uri: Optional[str] = None,
    *,
    conn_kwargs: Optional[Mapping[str, str]] = None,
    **db_kwargs: Any,
):
    """Connect through ``adbc_driver_manager.dbapi`` with chwire's driver.

    ``uri`` is a chwire URL (``tcp://user:password@host:9000/db?compression=lz4&...``: hosts,
    TLS, settings, timeouts, as for ``chwire.connect``). Keywords: ``username``, ``password``,
    and chwire's URL options by name (``compression="zstd"``, ``connect_timeout="5s"``,
    ``settings`` are not a keyword: put them in the URL). Returns an
    ``adbc_driver_manager.dbapi.Connection`` (PEP 249, plus ``fetch_arrow_table``,
    ``adbc_ingest``, ``adbc_get_objects``, ...). ClickHouse has no transactions: every
    statement commits by itself, and the connection's ``commit()`` and ``rollback()`` do
    nothing (the driver refuses to turn autocommit off, which the manager takes as "no
    transactions"; its warning about it is not shown).
    """
    import warnings

    try:
        from adbc_driver_manager import dbapi
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("chwire.adbc.connect needs the adbc-driver-manager package (pip install adbc-driver-manager)") from e
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Cannot disable autocommit")
        return dbapi.connect(
            driver=driver_path(),
            uri=uri,
            entrypoint=ENTRYPOINT,
            db_kwargs=_db_kwargs(db_kwargs),
            conn_kwargs=dict(conn_kwargs) if conn_kwargs else None,
            autocommit=False,
        )
