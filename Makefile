# chwire: the two commands of the README, and their parts.
SHELL := /bin/bash
CARGO ?= cargo
CHWIRE := target/release/chwire
DEMO_ROWS ?= 5000000
LOAD_SECS ?= 60
LOAD_TASKS ?= 16

.PHONY: demo test build lint oracle server-start server-stop server-status modernfake bench bench-smoke faults load cluster-start cluster-stop cluster-status

## The main job: start the local server if needed, insert generated rows through chwire
## with a progress bar, aggregate them. Leaves the server running (stop: make server-stop).
demo: build
	scripts/server.sh start
	$(CHWIRE) --url "$$(scripts/server.sh url)" demo --rows $(DEMO_ROWS)

## Every test: formatting, lints, unit tests, byte fixtures, the live-server suites (the
## server is started for the run and stopped afterwards if this started it), the
## ClickHouse 26.9 oracle (chdb) and a benchmark smoke run.
test: lint build modernfake
	CHWIRE_MODERNFAKE=$(CURDIR)/build/modernfake scripts/with-server.sh $(CARGO) test --release --workspace
	scripts/with-server.sh python3 bench/run.py --smoke --no-setup > /dev/null
	$(MAKE) --no-print-directory oracle
	$(MAKE) --no-print-directory faults

## Conformance against ClickHouse 26.9 in-process (chdb): decode, JSONEachRow, re-encode.
oracle: build
	scripts/oracle-venv.sh
	$(CARGO) run --release -q -p chwire-proto --example built_columns -- build/oracle-built.native
	$(CARGO) run --release -q -p chwire --example built_rows -- build/oracle-built-rows.native
	build/oracle-venv/bin/python tests/oracle/run.py --chwire target/release/chwire --built build/oracle-built.native \
		--built build/oracle-built-rows.native --built build/oracle-built-rows-dynamic.native
	$(CARGO) build --release -q -p chwire --example rows_oracle
	build/oracle-venv/bin/python tests/oracle/rows.py --bin target/release/examples/rows_oracle

## The side-by-side benchmark suite (installs the peers; ~30 min); writes docs/BENCHMARKS.md.
bench: build
	python3 bench/run.py --write-docs

## Faults on the three-server cluster (scripts/cluster.sh, started and stopped here): the
## toxiproxy and SIGKILL tests, then a 15 s slice of the load test with one kill.
faults: build
	scripts/with-cluster.sh --toxiproxy bash -c '$(CARGO) test --release -p chwire --test faults -- --ignored && \
		$(CARGO) run --release -q -p chwire --example load -- --duration 15 --tasks 8 --kills 1 --down 3'

## The load test: 16 tasks for 60 s through one pool over the cluster while a server is
## SIGKILLed and restarted twice (figures in docs/FAULTS.md).
load: build
	scripts/with-cluster.sh $(CARGO) run --release -q -p chwire --example load -- --duration $(LOAD_SECS) --tasks $(LOAD_TASKS) --kills 2

build:
	scripts/deps.sh
	$(CARGO) build --release --workspace

lint:
	scripts/deps.sh
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --workspace -q

modernfake:
	scripts/build-modernfake.sh build/modernfake

server-start:
	scripts/server.sh start
server-stop:
	scripts/server.sh stop
server-status:
	scripts/server.sh status

cluster-start:
	scripts/cluster.sh start
cluster-stop:
	scripts/cluster.sh stop
cluster-status:
	scripts/cluster.sh status
