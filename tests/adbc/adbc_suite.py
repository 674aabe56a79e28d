"""What the ADBC suite's modules share: the servers' URLs and queries."""

import os

URL = os.environ.get("CHWIRE_TEST_URL", "tcp://default@127.0.0.1:19000/default")
# The 18.16 server of `scripts/with-server.sh --both`, for the tests about old servers.
URL_18 = os.environ.get("CHWIRE_TEST_URL_18")
# Blocks of 10,000 rows, each 5 ms late, one thread: an error at row 200,000 comes after the
# result began (26.9 computes ahead fast enough to raise a quick error before the header).
LATE_ERROR = ("SELECT number AS n, toString(throwIf(number = 200000) + sleep(0.005)) AS s FROM system.numbers LIMIT 300000 "
              "SETTINGS max_block_size = 10000, max_threads = 1")
