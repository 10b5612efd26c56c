# burl: build, test, install. `make test` is what CI runs (.ci/run).
PREFIX  ?= $(HOME)/.local
DESTDIR ?=
GO      ?= go
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/burl-dev/burl/pkg/version.Version=$(VERSION)
# Tests run against a real installation in a throwaway prefix.
TEST_PREFIX := $(CURDIR)/dist/test-prefix
# `make bats BATS=bats/watch.bats` runs one file; the default is every file,
# the longest first (measured: minutes each), so that no long file starts
# last and runs on alone.
SLOW_BATS := $(patsubst %,bats/%.bats,forge_gitea recovery_crash_git recovery_crash recovery_kills mcp monitor \
	queue_race queue_approve next_step watch watch_rounds recovery_sync remote)
BATS ?= $(filter $(wildcard bats/*.bats),$(SLOW_BATS)) $(filter-out $(SLOW_BATS),$(wildcard bats/*.bats))
# Test files run in JOBS parallel jobs (bats --jobs, through GNU parallel),
# the tests of one file one after another; JOBS=1 runs the files one after
# another too. Most of a test's time is waiting on processes it started,
# so more jobs than cores pay. Every test has a HOME of its own; the Go
# build cache stays the user's (a test whose build command is go test
# would otherwise compile the standard library again).
JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) * 2 )))

# actionlint checks the contrib CI workflows (and the shell in them); run
# from the module proxy at a pinned version, so it is no dependency of burl.
ACTIONLINT ?= $(GO) run github.com/rhysd/actionlint/cmd/actionlint@v1.7.12

SHELL_FILES := install.sh .ci/run .ci/foreign-watch $(wildcard hooks/* contrib/*.sh contrib/*/*.sh bats/*.bash bats/doubles/* contrib/completion/git-burl.bash)

.PHONY: all build test deps forge unit cross bats lint install uninstall demo demo-pr demo-stack bench clean

all: build

# The installed layout in miniature: git-burl in bin/, the verbs in
# libexec/burl/ where the dispatcher looks for them (../libexec/burl).
build:
	@mkdir -p bin libexec/burl
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ ./cmd/git-burl
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o libexec/burl/ $$($(GO) list ./cmd/... | grep -v '/cmd/git-burl$$')

unit:
	$(GO) test ./...

# The PRD targets Linux, macOS and Windows: keep every binary compiling there.
cross:
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./...
	GOOS=windows GOARCH=amd64 $(GO) build -o /dev/null ./...

bats: build
	rm -rf $(TEST_PREFIX)
	PREFIX=$(TEST_PREFIX) BURL_QUIET_INSTALL=1 ./install.sh
	@jobs=$(JOBS); if [ "$$jobs" != 1 ] && ! command -v parallel >/dev/null; then \
		echo "bats: GNU parallel is not installed (contrib/test-deps.sh): the test files run one after another"; jobs=1; fi; \
	flags=$$([ "$$jobs" = 1 ] || echo "--jobs $$jobs --no-parallelize-within-files"); \
	echo "bats $$flags $(BATS)"; \
	PATH="$(TEST_PREFIX)/bin:$$PATH" MANPATH="$(TEST_PREFIX)/share/man:" GOCACHE="$$($(GO) env GOCACHE)" \
		bats $$flags $(BATS)

# What the tests need beyond Go and git: installed as root on Debian,
# else named with the commands that install them.
deps:
	@./contrib/test-deps.sh

# The forge tests' Gitea, built once per machine (minutes the first time):
# its steps show here as they happen, not in a test's log.
forge:
	@./contrib/forge/gitea.sh build >/dev/null || \
		echo "forge tests: Gitea could not be built here (its last lines are above): they will skip, each saying so"

test: deps lint unit cross forge bats

lint:
	@test -z "$$(gofmt -l cmd pkg internal)" || { echo "gofmt needed:"; gofmt -l cmd pkg internal; exit 1; }
	$(GO) vet ./...
	shellcheck $(SHELL_FILES)
	mandoc -T lint -W warning man/man1/*.1 man/man5/*.5
	$(ACTIONLINT) contrib/ci/*.yml

install:
	PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' ./install.sh

uninstall:
	PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' ./install.sh --uninstall

demo: build
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/demo.sh

# The README's Stacks section (bats/readme_stacks.bats checks it).
demo-stack: build
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/demo-stack.sh

# The pull-request tour against a real Gitea on loopback (built once per
# machine by contrib/forge/gitea.sh).
demo-pr: build
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/demo-pr.sh

bench: build
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/run.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/gitcount.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/history.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/soak.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/watch.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/watchab.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/gatebox.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/monitor.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/setup.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/queue.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/forge.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/mcp.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/verify.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/cockpit.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/clones.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/stack.sh
	PATH="$(CURDIR)/bin:$$PATH" ./contrib/bench/roundtrips.sh

clean:
	rm -rf bin libexec dist
