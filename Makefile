# duplexscope — `make` lists the targets.
SHELL := bash
GO ?= go
ADDR ?= 127.0.0.1:8080
WASM_EXEC := $(shell $(GO) env GOROOT)/lib/wasm
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
# Packages that must also pass under GOOS=js GOARCH=wasm (node runner).
WASM_TEST_PKGS ?= ./trace/... ./metrics/... ./protocol/... ./session/... ./chart/... ./audio/... ./report/... ./server/apiclient/...

.PHONY: help run build wasm test check fmt lint unit wasmtest e2e e2e-page e2e-timed e2e-untimed e2e-server screenshots security smoke smoke-front bench soak fuzz golden vendor clean deps

help: ## list targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-11s %s\n", $$1, $$2}'

run: wasm build ## build wasm + server, start `duplexscope serve` with the simulator
	@echo "duplexscope: open http://$(ADDR)/"
	./bin/duplexscope serve --addr $(ADDR)

build: ## build ./bin/duplexscope
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/duplexscope ./cmd/duplexscope

# Built in bin/wasm and moved into web/ (whose files Go builds embed) one
# whole file at a time; compress caches its copies by content.
wasm: ## build web/app.wasm and web/session-worker.wasm (+ .gz/.br)
	@mkdir -p bin/wasm
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags "-s -w" -o bin/wasm/app.wasm ./cmd/wasm
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags "-s -w" -o bin/wasm/session-worker.wasm ./cmd/worker
	$(GO) run ./internal/compress -into web bin/wasm/app.wasm bin/wasm/session-worker.wasm

deps:
	@scripts/deps.sh test

# The order, and what runs beside what (under SCHED_IDLE): scripts/test.sh.
test: deps ## everything CI runs (installs chromium/postgresql if missing)
	@MAKE="$(MAKE)" scripts/test.sh

check: ## gofmt, go mod tidy, vet and staticcheck (native + wasm, the browser-test tag, the bench's start-up floor)
	@out=$$(gofmt -s -l .); if [ -n "$$out" ]; then echo "gofmt -s would change:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./...
	$(GO) build -o bin/staticcheck honnef.co/go/tools/cmd/staticcheck
	bin/staticcheck ./...
	GOOS=js GOARCH=wasm bin/staticcheck ./...
	bin/staticcheck -tags e2e ./e2e/ ./server/ ./internal/browsertest/
	$(GO) vet -tags chartfloor ./internal/bench/hello/
	GOOS=js GOARCH=wasm bin/staticcheck -tags chartfloor ./internal/bench/hello/

lint: check

fmt: ## gofmt -s -w
	gofmt -s -w .

# cmd/duplexscope's fault tests run one at a time (they count the
# process's goroutines), about 50 s, and the package bounded the step: they
# run in a test process of their own beside the rest.
UNIT_APART := ^TestRunFaults
unit: ## go test -race ./... (-p 4: most packages wait on real-time sessions)
	@log=$$(mktemp); \
	echo "$(GO) test -race -count=1 -run '$(UNIT_APART)' ./cmd/duplexscope/   (beside)"; \
	$(GO) test -race -count=1 -run '$(UNIT_APART)' ./cmd/duplexscope/ >"$$log" 2>&1 & apart=$$!; \
	echo "$(GO) test -race -count=1 -p 4 -skip '$(UNIT_APART)' ./..."; \
	$(GO) test -race -count=1 -p 4 -skip '$(UNIT_APART)' ./...; rc=$$?; \
	wait $$apart; arc=$$?; echo "--- $(UNIT_APART) in ./cmd/duplexscope/:"; cat "$$log"; rm -f "$$log"; \
	[ $$rc -eq 0 ] && [ $$arc -eq 0 ]

wasmtest: ## pure packages under node (wasm == native)
	PATH="$(WASM_EXEC):$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 $(WASM_TEST_PKGS)

security: ## attack suite against a `duplexscope serve` subprocess (no -race: RSS bounds)
	$(GO) test -tags security -count=1 -timeout 10m -v ./internal/security/ 2>&1 | tee /tmp/duplexscope-security.log | grep -E '^(=== RUN|--- |ok|FAIL|PASS)|ATTACK|_test.go:'; exit $${PIPESTATUS[0]}

e2e: wasm ## real-browser tests (chromedp + Debian chromium): e2e-page, then e2e-server
	@$(MAKE) --no-print-directory e2e-page e2e-server

e2e-page: ## the e2e package's page tests (needs make wasm)
	$(GO) test -tags e2e -count=1 -timeout 15m ./e2e/...

# The e2e tests that bound a time: they do not call t.Parallel, so each has
# the browser to itself. make test runs them (e2e-timed) with the others
# (e2e-untimed) beside them under SCHED_IDLE; e2e's TestTimedList keeps this
# list equal to the package's tests without t.Parallel.
E2E_TIMED := ^(TestBrowserVerdict|TestDatasetSession|TestMicSession|TestPageProbes|TestPageTurnTakingLabels|TestPageTurnTakingProbe|TestPersonaPlexProfile|TestSessionThreadUnderStall)$$
# -v into a log, each test's line and time shown (the log whole on a
# failure): they are most of make test's critical path.
e2e-timed: ## e2e-page's tests that bound a time, one at a time
	@log=/tmp/duplexscope-e2e-timed.log; \
	echo "$(GO) test -tags e2e -count=1 -timeout 15m -v -run '$(E2E_TIMED)' ./e2e/...   (log: $$log)"; \
	$(GO) test -tags e2e -count=1 -timeout 15m -v -run '$(E2E_TIMED)' ./e2e/... 2>&1 | tee "$$log" | grep --line-buffered -E '^(--- |ok|FAIL)'; \
	rc=$${PIPESTATUS[0]}; if [ $$rc -ne 0 ]; then cat "$$log"; fi; exit $$rc

e2e-untimed: ## e2e-page's other tests (t.Parallel, two at a time)
	$(GO) test -tags e2e -count=1 -timeout 15m -skip '$(E2E_TIMED)' ./e2e/...

screenshots: wasm ## rewrite docs/screenshots: the e2e page tests, writing their screenshots there
	$(GO) test -tags e2e -count=1 -timeout 15m ./e2e/ -screenshots

e2e-server: ## the server's, axe's and the launcher's browser tests (needs make wasm)
	$(GO) test -tags e2e -count=1 -timeout 5m -run '^TestBrowser' ./server/
	$(GO) test -tags e2e -count=1 -timeout 2m ./internal/axe/ ./internal/browsertest/

smoke: ## short fuzz / soak / bench runs so they cannot rot
	@scripts/smoke.sh

smoke-front: ## smoke but the bench groups that time sessions: fuzz seeds, one-iteration benchmarks, 30 s soak, quick speed group
	@scripts/smoke.sh front

bench: wasm ## full benchmark suite → BENCHMARKS.md
	@scripts/bench.sh

soak: ## 64 sessions for 10 minutes
	$(GO) test -tags soak -count=1 -timeout 20m -run TestSoak ./session/ -soak.duration=10m

fuzz: ## long fuzzing of every target
	@scripts/fuzz.sh 120s

golden: ## rewrite golden snapshots (only the packages whose tests import internal/golden)
	@GO=$(GO) scripts/golden.sh

vendor: ## re-vendor echarts (web/) and axe-core (test data) from npm (vendoring time only)
	@web/vendor.sh
	@internal/axe/vendor.sh

clean:
	rm -rf bin web/app.wasm web/app.wasm.gz web/app.wasm.br web/session-worker.wasm web/session-worker.wasm.gz web/session-worker.wasm.br
