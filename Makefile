# procflow: the one entry point for people and CI.
#   make run     build and start the service on a private PostgreSQL (see README)
#   make test    the whole test suite, on its own throwaway PostgreSQL
#   make check   fmt, clippy (warnings denied), rustdoc, cargo-deny, then the tests
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
CARGO ?= cargo
export CARGO_TERM_COLOR ?= never

.PHONY: run stop-db test check fmt clippy doc deny tools postgres-tools help store-timings schema

help:
	@sed -n '2,5p' Makefile

## Tools a fresh machine lacks, installed once.
tools: postgres-tools
	@command -v cargo-deny >/dev/null || $(CARGO) install cargo-deny --locked

# The test kit starts PostgreSQL from the system's binaries; install them when absent.
postgres-tools:
	@scripts/ensure-postgres.sh

test: postgres-tools
	$(CARGO) test --workspace --all-targets
	$(CARGO) test --workspace --doc

fmt:
	$(CARGO) fmt --all --check

clippy:
	$(CARGO) clippy --workspace --all-targets -- -D warnings

doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps

deny: tools
	$(CARGO) deny check bans licenses sources

check: fmt clippy doc deny test

run:
	@CARGO="$(CARGO)" scripts/dev-run.sh run

## Stop the private PostgreSQL that `make run` started (its data stays in .data/).
stop-db:
	@scripts/dev-run.sh stop-db

## Release-mode timings of the store's hot writes (figures for docs/performance.md).
store-timings: postgres-tools
	$(CARGO) run --release -p procflow-postgres --example store_timings

## Regenerate crates/procflow-postgres/src/schema.rs from migrations/ (needs diesel_cli).
schema: postgres-tools
	scripts/regenerate-schema.sh
