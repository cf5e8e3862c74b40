# procflow: the one entry point for people and CI.
#   make run     build and start the service on a private PostgreSQL (see README)
#   make test    the whole test suite, on its own throwaway PostgreSQL
#   make check   fmt, clippy (warnings denied), rustdoc, cargo-deny, no import loops, openapi.json fresh, the tests
#   make openapi regenerate docs/openapi.json from the code
#   make clients-check  lint docs/openapi.json; Python and TypeScript clients from it, type-checked (docs/clients.md)
#   make bench   throughput and latency beside the SQL floor (target/bench/report.md)
#   make fuzz    schemathesis on a release build, every operation and check (docs/reliability.md)
#   make chaos   kill -9, PostgreSQL restarts and pool exhaustion under load (docs/reliability.md)
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
CARGO ?= cargo
export CARGO_TERM_COLOR ?= never

PHONY_ROBUSTNESS := fuzz fuzz-ci chaos
.PHONY: $(PHONY_ROBUSTNESS) run stop-db test check fmt clippy doc deny knots tools postgres-tools browser-tools mail-tools mcp-tools clients-tools clients-check help store-timings schema bench openapi openapi-check

help:
	@sed -n '2,9p' Makefile

## Tools a fresh machine lacks, installed once.
tools: postgres-tools
	@command -v cargo-deny >/dev/null || $(CARGO) install cargo-deny --locked

# The test kit starts PostgreSQL from the system's binaries; install them when absent.
postgres-tools:
	@scripts/ensure-postgres.sh

# The guest page's browser tests drive Debian's Chromium through ChromeDriver and run axe-core
# in it; install them when absent (apt-get, and npm ci of tests/browser's lockfile).
browser-tools:
	@scripts/ensure-browser.sh

# The email tests start an SMTP server (aiosmtpd) on loopback; make its virtualenv when absent.
mail-tools:
	@scripts/ensure-smtp.sh

# The MCP test drives `procflow mcp` with the official Python MCP SDK (PyPI mcp); make its
# virtualenv when absent.
mcp-tools:
	@scripts/ensure-mcp.sh

# The S3 adapter's tests start an S3-compatible server (PyPI moto[server]) on loopback; make its
# virtualenv when absent.
.PHONY: s3-tools
s3-tools:
	@scripts/ensure-s3.sh >/dev/null

test: postgres-tools browser-tools mail-tools mcp-tools s3-tools
	$(CARGO) test --workspace --all-targets --no-fail-fast
	$(CARGO) test --workspace --doc

fmt:
	$(CARGO) fmt --all --check

clippy:
	$(CARGO) clippy --workspace --all-targets -- -D warnings

doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --all-features

deny: tools
	$(CARGO) deny check bans licenses sources

## Fails when files of one crate import each other in a loop (docs/architecture.md).
knots:
	@python3 scripts/knots.py

## docs/openapi.json is generated from the code (crates/procflow-http/src/openapi.rs).
openapi:
	$(CARGO) run -q -p procflow-http --example openapi > docs/openapi.json.tmp
	mv docs/openapi.json.tmp docs/openapi.json

## Fails when docs/openapi.json differs from what the code generates.
openapi-check:
	@tmp=$$(mktemp); trap 'rm -f "$$tmp"' EXIT; \
	$(CARGO) run -q -p procflow-http --example openapi > "$$tmp"; \
	diff -u docs/openapi.json "$$tmp" > /dev/null || { \
		diff -u docs/openapi.json "$$tmp" | head -n 40 || true; \
		echo "docs/openapi.json is stale: run make openapi and commit it" >&2; exit 1; }

check: fmt clippy doc deny knots openapi-check test

# The tools of clients-check, pinned in tests/clients/: openapi-python-client and mypy (PyPI,
# into a virtualenv at target/tools/clients), Redocly CLI, openapi-typescript, openapi-fetch and
# TypeScript (npm ci of the lockfile); installed when absent or when their pins changed.
clients-tools:
	@scripts/ensure-clients.sh >/dev/null

## What a third-party client needs of docs/openapi.json: Redocly CLI's lint (redocly.yaml) and
## openapi-python-client's generation, into a temporary directory, fail on any error or warning;
## the generated client must compile, import, be typed and pass mypy --strict with the README
## tour's calls; openapi-typescript's types must compile the same calls under tsc --strict, and
## probes sending a number as a due date or an assignee must fail to type-check. About 45 s
## (a minute more with the install); CI runs it.
clients-check: clients-tools
	@scripts/clients-check.sh

run:
	@CARGO="$(CARGO)" scripts/dev-run.sh run

## Stop the private PostgreSQL that `make run` started (its data stays in .data/).
stop-db:
	@scripts/dev-run.sh stop-db

## Release build, a private PostgreSQL, 1,000,000 seeded runs, wrk and pgbench: prints the table
## and writes target/bench/report.md (docs/performance.md). About 25 minutes on 2 cores, plus
## the release build (link-time optimised: about 8 minutes from nothing).
## On a Citus coordinator: make bench BENCH_CITUS_URL=postgres://... (target/bench-citus/; its
## report ends beside the last plain run: bench/compare.sh; bench/README.md, "On Citus").
bench: postgres-tools
	@CARGO="$(CARGO)" bench/run.sh

## Release-mode timings of the store's hot writes (figures for docs/performance.md).
store-timings: postgres-tools
	$(CARGO) run --release -p procflow-postgres --example store_timings

## Regenerate crates/procflow-postgres/src/schema.rs from migrations/ (needs diesel_cli).
schema: postgres-tools
	scripts/regenerate-schema.sh

## schemathesis (pinned, in target/fuzz/venv) on a release build and a throwaway database, two
## seeded teams: every operation, phase and check, up to 500 cases per operation and phase,
## at most 40 minutes. Not part of `make test`. docs/reliability.md.
fuzz: postgres-tools
	@CARGO="$(CARGO)" scripts/fuzz.sh

## The short, fixed-seed fuzz pass of CI (.ci/run): a few minutes, same checks, on the debug
## build that `make test` made (no release build in CI).
fuzz-ci: postgres-tools
	@CARGO="$(CARGO)" FUZZ_SEED=$${FUZZ_SEED:-20261125} FUZZ_MAX_EXAMPLES=$${FUZZ_MAX_EXAMPLES:-60} \
		FUZZ_MAX_TIME=$${FUZZ_MAX_TIME:-300} FUZZ_BUILD=$${FUZZ_BUILD:-debug} scripts/fuzz.sh

## kill -9 under write load (restarted, and beside a live instance), PostgreSQL restarted under
## load, pool exhaustion, a keyless flood from one address; prints a table.
## Not part of `make test`. docs/reliability.md.
chaos: postgres-tools mail-tools
	@CARGO="$(CARGO)" scripts/chaos.sh

## The store conformance suite and the HTTP suite against a Citus coordinator you provide:
## make test-citus CITUS_URL=postgres://user@host:port/db (each test in a schema of its own,
## migrated and distributed by `procflow migrate`). Skipped, saying so, without CITUS_URL.
## Not part of `make test` nor of CI. docs/scaling.md.
## Skipped there: the tests that revert migrations to a schema from before Citus (a unique
## index across teams, triggers), which a distributed database cannot take back; and the
## inbox's plan test, a plan of one PostgreSQL whose seeding statement (INSERT ... SELECT
## jsonb_populate_record in writing CTEs) crashed the Citus 13.2.2 coordinator (signal 11);
## and the scheduler's plan test, a plan of one PostgreSQL too (on Citus the due read is a
## statement on every shard by design), whose set-up Citus refuses (a STABLE timestamp sum
## over a column in an UPDATE); and the claim-order test, which waits until the coordinator's
## pg_stat_activity shows its claims waiting for a lock (on Citus a row lock is waited for on
## a worker node, where the tests' schemas share one database).
CITUS_SKIP := --skip conformance::migrations:: \
	--skip a_claim_that_waited_for_another_takes_what_that_one_left \
	--skip conformance::inbox_plan:: \
	--skip conformance::schedules_plan:: \
	--skip counts_kept_as_timestamps_before_the_migration \
	--skip a_link_made_before_the_migration_still_opens_its_run
.PHONY: test-citus
test-citus: mail-tools
	@if [ -z "$(CITUS_URL)" ]; then \
		echo "test-citus: skipped: set CITUS_URL=postgres://... to a Citus coordinator"; \
	else \
		CITUS_URL='$(CITUS_URL)' $(CARGO) test -p procflow-postgres --all-features \
			--test conformance -- --test-threads 4 $(CITUS_SKIP) && \
		CITUS_URL='$(CITUS_URL)' $(CARGO) test -p procflow-tests --test api -- --test-threads 4; \
	fi
