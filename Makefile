# duplexscope — `make` lists the targets.
SHELL := bash
GO ?= go
ADDR ?= 127.0.0.1:8080
WASM_EXEC := $(shell $(GO) env GOROOT)/lib/wasm
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
# Packages that must also pass under GOOS=js GOARCH=wasm (node runner).
WASM_TEST_PKGS ?= ./trace/... ./metrics/... ./protocol/... ./session/... ./chart/... ./audio/... ./report/...

.PHONY: help run build wasm test check fmt lint unit wasmtest e2e security smoke bench soak fuzz golden vendor clean deps

help: ## list targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-9s %s\n", $$1, $$2}'

run: wasm build ## build wasm + server, start `duplexscope serve` with the simulator
	@echo "duplexscope: open http://$(ADDR)/"
	./bin/duplexscope serve --addr $(ADDR)

build: ## build ./bin/duplexscope
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/duplexscope ./cmd/duplexscope

wasm: ## build web/app.wasm and web/session-worker.wasm (+ .gz/.br)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags "-s -w" -o web/app.wasm ./cmd/wasm
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags "-s -w" -o web/session-worker.wasm ./cmd/worker
	$(GO) run ./internal/compress web/app.wasm web/session-worker.wasm

deps:
	@scripts/deps.sh test

test: deps check unit wasmtest wasm security e2e smoke ## everything CI runs (installs chromium/postgresql if missing)
	@echo "make test: all passed"

check: ## gofmt, go mod tidy, vet and staticcheck (native + wasm, and the browser-test tag)
	@out=$$(gofmt -s -l .); if [ -n "$$out" ]; then echo "gofmt -s would change:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./...
	$(GO) build -o bin/staticcheck honnef.co/go/tools/cmd/staticcheck
	bin/staticcheck ./...
	GOOS=js GOARCH=wasm bin/staticcheck ./...
	bin/staticcheck -tags e2e ./e2e/ ./server/ ./internal/browsertest/

lint: check

fmt: ## gofmt -s -w
	gofmt -s -w .

unit: ## go test -race ./... (-p 4: most packages wait on real-time sessions)
	$(GO) test -race -count=1 -p 4 ./...

wasmtest: ## pure packages under node (wasm == native)
	PATH="$(WASM_EXEC):$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 $(WASM_TEST_PKGS)

security: ## attack suite against a `duplexscope serve` subprocess (no -race: RSS bounds)
	$(GO) test -tags security -count=1 -timeout 10m -v ./internal/security/ 2>&1 | tee /tmp/duplexscope-security.log | grep -E '^(=== RUN|--- |ok|FAIL|PASS)|ATTACK|_test.go:'; exit $${PIPESTATUS[0]}

e2e: wasm ## real-browser tests (chromedp + Debian chromium)
	$(GO) test -tags e2e -count=1 -timeout 15m ./e2e/...
	$(GO) test -tags e2e -count=1 -timeout 5m -run '^TestBrowser' ./server/
	$(GO) test -tags e2e -count=1 -timeout 2m ./internal/axe/ ./internal/browsertest/

smoke: ## short fuzz / soak / bench runs so they cannot rot
	@scripts/smoke.sh

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
	rm -rf bin web/app.wasm web/app.wasm.gz web/app.wasm.br
