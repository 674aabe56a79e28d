# chwire: the two commands of the README, and their parts.
SHELL := /bin/bash
CARGO ?= cargo
CHWIRE := target/release/chwire
DEMO_ROWS ?= 5000000

.PHONY: demo test build lint unit live server-start server-stop server-status modernfake

## The main job: start the local server if needed, insert generated rows through chwire
## with a progress bar, aggregate them. Leaves the server running (stop: make server-stop).
demo: build
	scripts/server.sh start
	$(CHWIRE) --url "$$(scripts/server.sh url)" demo --rows $(DEMO_ROWS)

## Every test: formatting, lints, unit tests, byte fixtures, and the live-server suites
## (the server is started for the run and stopped afterwards if this started it).
test: lint build modernfake
	CHWIRE_MODERNFAKE=$(CURDIR)/build/modernfake scripts/with-server.sh $(CARGO) test --release --workspace

build:
	scripts/deps.sh
	$(CARGO) build --release --workspace

lint:
	scripts/deps.sh
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings

modernfake:
	scripts/build-modernfake.sh build/modernfake

server-start:
	scripts/server.sh start
server-stop:
	scripts/server.sh stop
server-status:
	scripts/server.sh status
