# chwire: the two commands of the README, and their parts.
SHELL := /bin/bash
CARGO ?= cargo
CHWIRE := target/release/chwire
DEMO_ROWS ?= 5000000
LOAD_SECS ?= 60
LOAD_TASKS ?= 16
# The venvs are built once; pip's download cache would only double their footprint on disk.
export PIP_NO_CACHE_DIR ?= 1

.PHONY: demo test http-test build lint package-check oracle live oracle-parquet server-start server-stop server-status server18-start server18-stop server18-status modernfake bench bench-smoke \
	bench-arrow bench-parquet bench-zstd fuzz fuzz-smoke miri \
	faults load cluster-start cluster-stop cluster-status \
	py-venv python-test python-bench spark-venv spark-test bench-spark bench-spark-jvm spark-jar spark-jvm-test \
	spark40-venv spark-jvm-test-40 adbc-test adbc-bench \
	elixir-test elixir-bench node-build node-test node-bench

## The main job: start the local server if needed, insert generated rows through chwire
## with a progress bar, aggregate them. Leaves the server running (stop: make server-stop).
demo: build
	scripts/server.sh start
	$(CHWIRE) --url "$$(scripts/server.sh url)" demo --rows $(DEMO_ROWS)

## Every test: formatting, lints, unit tests, byte fixtures, the live-server suites (the
## server is started for the run and stopped afterwards if this started it), the
## ClickHouse 26.9 oracle (chdb) and a benchmark smoke run.
test:
	@scripts/stage.sh begin
	@scripts/stage.sh run lint $(MAKE) --no-print-directory lint
	@scripts/stage.sh run build $(MAKE) --no-print-directory build modernfake
	@scripts/stage.sh run package-check $(MAKE) --no-print-directory package-check
	@scripts/stage.sh run cargo-test env CHWIRE_MODERNFAKE=$(CURDIR)/build/modernfake scripts/with-server.sh --both $(CARGO) test --release --workspace
	@scripts/stage.sh run bench-smoke $(MAKE) --no-print-directory bench-smoke
	@scripts/stage.sh run oracle $(MAKE) --no-print-directory oracle
	@scripts/stage.sh run live $(MAKE) --no-print-directory live LIVE_ARGS=--quick
	@scripts/stage.sh run fuzz-smoke $(MAKE) --no-print-directory fuzz-smoke
	@scripts/stage.sh run faults $(MAKE) --no-print-directory faults
	@scripts/stage.sh run http-test $(MAKE) --no-print-directory http-test
	@scripts/stage.sh run python-test $(MAKE) --no-print-directory python-test
	@scripts/stage.sh run spark-test $(MAKE) --no-print-directory spark-test
	@scripts/stage.sh run spark-jvm-test $(MAKE) --no-print-directory spark-jvm-test
	@scripts/stage.sh run spark-jvm-test-40 $(MAKE) --no-print-directory spark-jvm-test-40
	@scripts/stage.sh run spark-bench-smoke $(MAKE) --no-print-directory bench-spark-jvm SPARK_BENCH_ROWS=200000 SPARK_BENCH_ARGS='--jdbc-partitions 3'
	@scripts/stage.sh run adbc-test $(MAKE) --no-print-directory adbc-test
	@scripts/stage.sh run elixir-test $(MAKE) --no-print-directory elixir-test
	@scripts/stage.sh run node-test $(MAKE) --no-print-directory node-test NODE_BENCH_SMOKE=1
	@scripts/stage.sh report

## The benchmarks' smoke runs (a slice of each, so that they cannot rot): the side-by-side
## suite's smoke mode on both servers (run.py takes the ports with-server.sh exports), the
## raw-socket floors' reads and insert, and query_arrow against the block stream.
bench-smoke: build
	scripts/with-server.sh python3 bench/run.py --smoke --no-setup > /dev/null
	scripts/with-server.sh --18 python3 bench/run.py --smoke --no-setup > /dev/null
	bench/floor/build.sh > /dev/null
	scripts/with-server.sh --both python3 bench/run.py --servers 26.9,18.16 --no-setup --runs 1 --workloads W2,W5,W8 --compressions none,lz4 --clients native-floor --fail-on-error > /dev/null
	$(CARGO) build --release -q --workspace --example arrow_bench
	scripts/with-server.sh sh -c 'target/release/examples/arrow_bench "$$CHWIRE_TEST_URL" 1 100' > /dev/null

## Conformance against ClickHouse 26.9 in-process (chdb): decode, JSONEachRow, re-encode.
oracle: build
	scripts/oracle-venv.sh
	$(CARGO) build --release -q --workspace --example built_columns --example built_rows --example rows_oracle --example arrow_oracle
	target/release/examples/built_columns build/oracle-built.native
	target/release/examples/built_rows build/oracle-built-rows.native
	build/oracle-venv/bin/python tests/oracle/run.py --chwire target/release/chwire --built build/oracle-built.native \
		--built build/oracle-built-rows.native --built build/oracle-built-rows-dynamic.native
	build/oracle-venv/bin/python tests/oracle/rows.py --bin target/release/examples/rows_oracle
	build/oracle-venv/bin/python tests/oracle/arrow.py --bin target/release/examples/arrow_oracle
	build/oracle-venv/bin/python tests/oracle/parquet.py --chwire $(CHWIRE) -k $(PARQUET_ORACLE_SMOKE)
	build/oracle-venv/bin/python bench/parquet_bench.py --chwire $(CHWIRE) --rows 100000 --runs 1 > /dev/null

## The conformance corpus against the live 26.9 server (tests/oracle/live.py): every case read
## at each revision of the matrix with each compression and over HTTP, and inserted back through
## each insert path; `make test` runs it with LIVE_ARGS=--quick (the matrix's first and last
## revision).
LIVE_ARGS ?=
live: build
	scripts/with-server.sh python3 tests/oracle/live.py --chwire $(CHWIRE) $(LIVE_ARGS)

## Parquet and Arrow files against chdb and pyarrow, every conformance case (`make oracle`
## runs the slice PARQUET_ORACLE_SMOKE of it).
PARQUET_ORACLE_SMOKE ?= stream/,variant/,lowcardinality/FixedString
oracle-parquet: build
	scripts/oracle-venv.sh
	build/oracle-venv/bin/python tests/oracle/parquet.py --chwire $(CHWIRE)

## Parquet write/read of W2's 10M rows: chwire vs pyarrow and chdb (printed ratios).
bench-parquet: build
	scripts/oracle-venv.sh
	build/oracle-venv/bin/python bench/parquet_bench.py --chwire $(CHWIRE)

## The zstd layer on the seed report's shapes next to memcpy (criterion), with ratios.
bench-zstd:
	$(CARGO) bench -p chwire-proto --bench zstd_shapes
	python3 bench/zstd_summary.py target

## Coverage-guided fuzzing of every decoder (docs/FUZZING.md): each target for FUZZ_SECONDS
## (nightly + AddressSanitizer when a nightly toolchain is installed, else stable).
FUZZ_SECONDS ?= 300
fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

## The slice `make test` runs: each target for a few seconds, on stable Rust (no nightly
## needed). The seeds and regressions also replay in `cargo test` (chwire-proto's fuzz_corpus).
fuzz-smoke:
	scripts/fuzz.sh 5 --stable

## The decoders' unsafe code under Miri (nightly with the miri component; not part of
## `make test`: only stable Rust is guaranteed). docs/FUZZING.md.
miri:
	rustup component add --toolchain nightly miri rust-src
	$(CARGO) +nightly miri test -p chwire-proto --test unsafe_paths
	$(CARGO) +nightly miri test -p chwire-proto --test fixed_fill a_fixed_width_column_waits
	$(CARGO) +nightly miri test -p chwire-arrow --test unsafe_paths

## The Python package (python/): builds the abi3 wheel (release, stripped) into build/py-wheels,
## installs it into build/py-venv with the pinned test dependencies and runs its pytest suite
## against the live server (and chdb, from build/oracle-venv).
PY_VENV := build/py-venv
PY_PINS := maturin==1.16.0 pyarrow==26.0.1 pandas==3.1.1 polars==2.1.0 numpy==2.4.6 pytest==9.2.0 duckdb==2.0.1
py-venv:
	test -x $(PY_VENV)/bin/python || python3 -m venv $(PY_VENV)
	$(PY_VENV)/bin/pip install -q $(PY_PINS)
	CARGO=$(CARGO) scripts/py-wheel.sh $(PY_VENV)

python-test: py-venv
	scripts/oracle-venv.sh
	scripts/with-server.sh --both $(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider python/tests

## The ADBC driver (crates/chwire-adbc, docs/ADBC.md): the wheel of py-venv (maturin's plain
## build, as `pip install ./python`: its compiled module is the driver) with adbc-driver-manager,
## the DB-API/Polars suite tests/adbc against the live server, then the ADBC project's Go
## validation suite (tests/adbc/go) through Go's driver manager with the crate's own library
## (target/release/libadbc_driver_chwire.so, from py-wheel.sh's workspace build).
ADBC_PINS := adbc-driver-manager==1.13.0
# Cases of the Go suite left out, each for a reason given in docs/ADBC.md (the suite expects
# one batch where ClickHouse sends one block per part, as 26.9 does even under ORDER BY; Go's
# drivermgr answers ExecutePartitions itself with an error type the suite does not take).
ADBC_GO_SKIP := TestValidation/Statement/(TestSqlIngestCreateAppend|TestSqlIngestAppend|TestSqlPartitionedInts)$$
adbc-test: py-venv
	$(PY_VENV)/bin/pip install -q $(ADBC_PINS)
	scripts/with-server.sh --both $(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/adbc
	set -o pipefail; cd tests/adbc/go && CHWIRE_ADBC_DRIVER=$(CURDIR)/target/release/libadbc_driver_chwire.so \
		../../../scripts/with-server.sh --both go test -count=1 -v -skip '$(ADBC_GO_SKIP)' ./... | grep -E '^\s*--- |^(ok|FAIL)'

## W1/W2 through ADBC into a pyarrow Table against chwire's query_arrow, and W2's 10M rows
## through adbc_ingest against insert_arrow (printed ratios; docs/BENCHMARKS.md).
adbc-bench: adbc-test
	for s in --26 --18; do scripts/with-server.sh $${s#--26} sh -c 'echo "== ClickHouse $$CHWIRE_TEST_SERVER" && \
		exec $(PY_VENV)/bin/python bench/python/adbc_bench.py' || exit 1; done

## The Spark data source (python/chwire/spark): pyspark 4.3 beside the wheel in build/py-venv
## (one venv: its pyarrow, pandas and numpy are Spark's too), a local[2] Spark against the
## cluster rig of ClickHouse 26.9 (started and stopped by scripts/with-cluster.sh), then the
## tests marked cluster18 (TLS; clickhouse-local has no TLS listener nor ZooKeeper client) or
## both_servers (behaviour that differs by server) against the 18.16 cluster; needs Java 17.
## docs/SPARK.md. The 18.16 step's cluster has its own ports and directory (CHWIRE_CLUSTER18_*,
## cluster.sh's 18.16 defaults), so that CHWIRE_CLUSTER_TCP_BASE & co. given for the 26.9
## cluster are not also the 18.16 one's.
SPARK_PINS := pyspark==4.3.0
spark-venv: py-venv
	$(PY_VENV)/bin/pip install -q $(SPARK_PINS)

CHWIRE_CLUSTER18_TCP_BASE ?= 19650
CHWIRE_CLUSTER18_HTTP_BASE ?= 18750
CHWIRE_CLUSTER18_ZK_PORT ?= $(or $(CHWIRE_CLUSTER_ZK_PORT),19619)
CHWIRE_CLUSTER18_DIR ?= $(CURDIR)/build/cluster
WITH_CLUSTER_18 = env CHWIRE_CLUSTER_TCP_BASE=$(CHWIRE_CLUSTER18_TCP_BASE) CHWIRE_CLUSTER_HTTP_BASE=$(CHWIRE_CLUSTER18_HTTP_BASE) \
	CHWIRE_CLUSTER_ZK_PORT=$(CHWIRE_CLUSTER18_ZK_PORT) CHWIRE_CLUSTER_DIR=$(CHWIRE_CLUSTER18_DIR) scripts/with-cluster.sh --18

spark-test: spark-venv
	scripts/with-cluster.sh $(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider python/spark_tests
	$(WITH_CLUSTER_18) $(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider -m 'cluster18 or both_servers' python/spark_tests

## The JVM Spark connector (spark/, docs/SPARK.md): chwire's JNI library (one release build of
## crates/chwire-spark-jni in the workspace target dir) inside one jar, compiled against the
## jars of the pyspark in the venv (Spark 4.3.0, Arrow 19.0.0) with Maven (its repository under
## build/spark/m2: offline once filled).
SPARK_JARS_DIR = $$($(abspath $(PY_VENV))/bin/python -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')
spark-jar: spark-venv
	$(CARGO) build --release -q --workspace
	mkdir -p build/spark/native
	cp target/release/libchwire_spark_jni.so build/spark/native/
	cd spark && mvn -q -B $$(test -f ../build/spark/m2/.complete && echo -o) -Dmaven.repo.local=$(CURDIR)/build/spark/m2 \
		-Dspark.jars.dir=$(SPARK_JARS_DIR) -Dnative.dir=$(CURDIR)/build/spark/native package
	touch build/spark/m2/.complete
	cp build/spark/maven/chwire-spark.jar build/spark/chwire-spark.jar

## The JVM connector on a local Spark (pyspark's, with spark.jars) against the 26.9 cluster rig,
## next to the PySpark source (same plans, same rows); then the tests marked both_servers on the
## 18.16 cluster (as spark-test).
spark-jvm-test: spark-jar
	scripts/with-cluster.sh $(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider spark/tests
	$(WITH_CLUSTER_18) $(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider -m both_servers spark/tests

## The same jar (compiled against Spark 4.3) on Spark 4.0: pyspark 4.0.5 in a venv of its own
## with the wheel, spark/tests (in `make test`: SPARK40_TESTS, a slice) against the 26.9 cluster (the tests comparing with the PySpark
## source skip themselves: a Python Data Source needs PySpark 4.1). docs/SPARK.md.
SPARK40_VENV := build/spark40-venv
# `make test` runs the connector's reads, writes and pushdown on 4.0 (a slice, for the CI
# budget); `make spark-jvm-test-40 SPARK40_TESTS=spark/tests` runs every file.
SPARK40_TESTS ?= spark/tests/test_jvm.py
SPARK40_PINS := pyspark==4.0.5 pyarrow==26.0.1 pandas==2.3.3 numpy==2.4.6 pytest==9.2.0
# py-venv's wheel (py-wheel.sh builds one at a time), installed again only when it is newer.
spark40-venv: py-venv
	test -x $(SPARK40_VENV)/bin/python || python3 -m venv $(SPARK40_VENV)
	$(SPARK40_VENV)/bin/pip install -q $(SPARK40_PINS)
	wheel=$$(ls build/py-wheels/chwire-*.whl) && { test $(SPARK40_VENV)/.chwire-wheel -nt $$wheel || \
		{ $(SPARK40_VENV)/bin/pip install -q --force-reinstall --no-deps $$wheel && touch $(SPARK40_VENV)/.chwire-wheel; }; }

spark-jvm-test-40: spark-jar spark40-venv
	scripts/with-cluster.sh $(SPARK40_VENV)/bin/python -m pytest -q -p no:cacheprovider $(SPARK40_TESTS)

## chwire source vs Spark's JDBC source (clickhouse-jdbc from Maven) on W2's columns over the
## rig's 3-shard table; SPARK_BENCH_ROWS rows (docs/BENCHMARKS.md).
SPARK_BENCH_ROWS ?= 10000000
bench-spark: spark-venv
	scripts/with-cluster.sh $(PY_VENV)/bin/python bench/spark/bench.py --rows $(SPARK_BENCH_ROWS)

## The JVM connector (build/spark/chwire-spark.jar) against JDBC and the PySpark source in one
## Spark session, with its floors (bench/spark/jvm: a columnar source without IO, an Arrow writer
## that drops its batches, compiled against the venv's Spark jars into
## build/spark/chwire-spark-bench.jar), an aggregate pushed down, and the Spark JVM's RSS
## through a read; SPARK_BENCH_ROWS rows, 100M unless set (docs/BENCHMARKS.md). A 1M-row slice
## takes about 2 min: make bench-spark-jvm SPARK_BENCH_ROWS=1000000. SPARK_BENCH_ARGS: more
## options of bench/spark/bench.py (e.g. --jdbc-partitions 6,12, --decimal, --skip-write).
bench-spark-jvm: spark-jar
	rm -rf build/spark/bench-classes && mkdir -p build/spark/bench-classes
	javac --release 17 -Xlint:all,-processing,-serial,-options,-path,-classfile -cp "$(SPARK_JARS_DIR)/*" \
		-d build/spark/bench-classes bench/spark/jvm/chwire/bench/*.java
	jar --create --file build/spark/chwire-spark-bench.jar -C build/spark/bench-classes .
	scripts/with-cluster.sh $(PY_VENV)/bin/python bench/spark/bench.py --jvm \
		--rows $(if $(filter file,$(origin SPARK_BENCH_ROWS)),100000000,$(SPARK_BENCH_ROWS)) $(SPARK_BENCH_ARGS)

## The Elixir binding (elixir/, docs in elixir/README.md): the NIF crate built once in the
## workspace's target dir (release), the Mix project's format check and its ExUnit suite against
## ClickHouse 26.9 with an 18.16 slice (old-server behaviour, TLS) and a 26.9 in Asia/Kolkata
## that the suite starts itself (~35 s); the Arrow IPC output is also read with pyarrow (build/ex-venv).
EX_VENV := build/ex-venv
elixir-test:
	scripts/elixir-deps.sh
	test -x $(EX_VENV)/bin/python || python3 -m venv $(EX_VENV)
	$(EX_VENV)/bin/pip install -q pyarrow==26.0.1
	$(CARGO) build --release --workspace
	cd elixir && mix format --check-formatted
	cd elixir && CHWIRE_SKIP_CARGO=1 CHWIRE_PYARROW_PYTHON=$(CURDIR)/$(EX_VENV)/bin/python ../scripts/with-server.sh --both mix test

## The Elixir benchmarks (the seed report's 1M x 7 case, the pure-Elixir RowBinary decoder, the
## insert, query_arrow of W1, a 100M-row stream; printed ratios, docs/BENCHMARKS.md).
elixir-bench:
	scripts/elixir-deps.sh
	$(CARGO) build --release --workspace
	cd elixir && for s in --26 --18; do CHWIRE_SKIP_CARGO=1 MIX_ENV=prod ../scripts/with-server.sh $${s#--26} sh -c \
		'echo "== ClickHouse $$CHWIRE_TEST_SERVER" && exec mix run bench/elixir_bench.exs' || exit 1; done

## The Node.js binding (node/): its npm dependencies (npm ci with the lock file, else npm
## install), the addon (napi-rs, release, into the workspace's target/) and the TypeScript layer
## by the package's build script, prettier and a type check of the declarations, then the
## node:test suites against 26.9 and 18.16 (scripts/with-server.sh --both).
NODE_NPM_FLAGS := --no-audit --no-fund --loglevel=error
node-build:
	cd node && if [ -f package-lock.json ]; then npm ci $(NODE_NPM_FLAGS) --ignore-scripts; else npm install $(NODE_NPM_FLAGS) --ignore-scripts; fi
	cd node && CARGO_TARGET_DIR="$${CARGO_TARGET_DIR:-$(CURDIR)/target}" npm run --silent build

node-test: node-build
	cd node && npm run --silent format:check
	cd node && npm run --silent typecheck
	cd node && ../scripts/with-server.sh --both npm test
	$(if $(NODE_BENCH_SMOKE),scripts/with-server.sh node bench/node/bench.mjs --smoke > /dev/null)

## The Node.js benchmark against @clickhouse/client (bench/node/bench.mjs: read and insert
## workloads, ratios printed; NODE_BENCH_ARGS=--smoke for a slice).
NODE_BENCH_ARGS ?=
node-bench: node-build
	scripts/with-server.sh node bench/node/bench.mjs $(NODE_BENCH_ARGS)

## Python benchmarks against clickhouse-connect 1.12.0 (its Python and Rust codecs, the server's Arrow) and
## clickhouse-driver 0.2.11 on ClickHouse 26.9 (printed ratios; W7 needs bench/run.py's table).
python-bench: python-test
	$(PY_VENV)/bin/pip install -q "clickhouse-connect[rust,arrow]==1.12.0" clickhouse-driver[numpy]==0.2.11
	$(CARGO) build --release -q --workspace --example arrow_bench
	scripts/with-server.sh sh -c 'CHWIRE_CH_HTTP_PORT=$${CHWIRE_CH_HTTP_PORT:-18123} $(PY_VENV)/bin/python bench/python/bench.py'

## The side-by-side benchmark suite on ClickHouse 26.9 and 18.16 (bench/PEERS.md: installs and
## builds the peers; a few hours, the slow Python peers most of it); writes docs/BENCHMARKS.md.
## Then W9, W1/W2/W5 over emulated links in network namespaces of its own (needs root; ~30 min).
bench: build
	python3 bench/run.py --write-docs
	python3 bench/netem/w9.py

## query_arrow against the plain block stream on W1/W2 (printed ratios; docs/BENCHMARKS.md).
bench-arrow: build
	$(CARGO) build --release -q --workspace --example arrow_bench
	scripts/with-server.sh sh -c 'target/release/examples/arrow_bench "$$CHWIRE_TEST_URL" 5'
## Faults on the three-server cluster of ClickHouse 26.9 (scripts/cluster.sh, started and
## stopped here): the toxiproxy and SIGKILL tests; then a 15 s slice of the load test with one
## kill on the 18.16 cluster (its replicas replicate; clickhouse-local has no ZooKeeper client).
faults: build
	scripts/with-cluster.sh --toxiproxy $(CARGO) test --release --workspace --test faults -- --ignored
	$(CARGO) build --release -q --workspace --example load
	scripts/with-cluster.sh --18 target/release/examples/load --duration 15 --tasks 8 --kills 1 --down 3

## The HTTP transport: the live suites (types, rows, Arrow, CLI) again over http://, and the
## HTTP tests through nginx (scripts/nginx.sh, started and stopped here) in front of the rig.
HTTP_SUITES := --workspace --test http --test live --test rows --test rows_ext --test arrow --test pool
http-test: build
	scripts/with-server.sh --both bash -c 'scripts/nginx.sh start && trap "scripts/nginx.sh stop" EXIT && \
		export CHWIRE_TEST_URL=$$CHWIRE_TEST_HTTP_URL \
			CHWIRE_TEST_PROXY_URL=$$(scripts/nginx.sh url) CHWIRE_TEST_PROXY_CUT_URL=$$(scripts/nginx.sh cut-url) && \
		$(CARGO) test --release $(HTTP_SUITES) && \
		$(CARGO) test --release --workspace --test cli --test formats'

## The load test: 16 tasks for 60 s through one pool over the cluster while a server is
## SIGKILLed and restarted twice (figures in docs/FAULTS.md).
load: build
	$(CARGO) build --release -q --workspace --example load
	scripts/with-cluster.sh --18 target/release/examples/load --duration $(LOAD_SECS) --tasks $(LOAD_TASKS) --kills 2

build:
	scripts/deps.sh
	$(CARGO) build --release --workspace

lint:
	scripts/deps.sh
	$(CARGO) fmt --all -- --check
	CARGO=$(CARGO) scripts/layers.sh
	python3 scripts/module-cycles.py
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --release --no-deps --workspace -q

## The crates as crates.io would take them: chwire-proto, -derive, -text, -arrow, -row and -formats
## packaged and each built from its package (a sibling crates.io does not have yet resolves to
## its local package), then chwire and chwire-cli packaged too, unbuilt (manifests resolved);
## the .crate files land in target/package. The other crates are `publish = false` (bindings,
## the ADBC driver, the Spark rules). tests/ is left out of the packages (cargo says so per
## test). About 3 minutes the first time (the packages' dependencies, dev profile), seconds after.
PACKAGED_CRATES := -p chwire-proto -p chwire-derive -p chwire-text -p chwire-arrow -p chwire-row -p chwire-formats
## Cargo takes a package from a registry as never changing: it extracts each package it verifies
## into CARGO_HOME/registry/src/-<hash of the local registry's path>/ once, and reuses what it
## built from it by name and version alone. A package built before from older sources would be
## verified against (a CI failure: an old chwire-arrow without a function chwire-formats now
## calls). So the verification builds in a target dir of its own whose chwire artifacts, and our
## packages' extracts, go first; the dependencies' builds stay.
PACKAGE_TARGET := target/package-verify
package-check:
	rm -rf "$${CARGO_HOME:-$$HOME/.cargo}"/registry/src/-*/chwire-* \
	  $(PACKAGE_TARGET)/debug/.fingerprint/chwire-* $(PACKAGE_TARGET)/debug/deps/*chwire* \
	  $(PACKAGE_TARGET)/debug/build/chwire-*
	CARGO_TARGET_DIR=$(PACKAGE_TARGET) $(CARGO) package --allow-dirty $(PACKAGED_CRATES)
	$(CARGO) package --allow-dirty --no-verify $(PACKAGED_CRATES) -p chwire -p chwire-cli

modernfake:
	scripts/build-modernfake.sh build/modernfake

## The default server, ClickHouse 26.9 (scripts/server.sh), and the oldest supported, 18.16
## (scripts/server-18.sh).
server-start:
	scripts/server.sh start
server-stop:
	scripts/server.sh stop
# A server that is not running is an answer, not a failure of make.
server-status:
	@scripts/server.sh status || true
server18-start:
	scripts/server-18.sh start
server18-stop:
	scripts/server-18.sh stop
server18-status:
	@scripts/server-18.sh status || true

cluster-start:
	scripts/cluster.sh start
cluster-stop:
	scripts/cluster.sh stop
cluster-status:
	@scripts/cluster.sh status || true
