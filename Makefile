# capabilities: build, run and test.
#
#   make run    build the app and start the hub with its tray icon (headless
#               where there is no display)
#   make install  put the app in ~/.local/bin (/usr/local/bin as root) with its
#               launcher and icon, and point clients and autostart at it
#   make screenshots  render the tray menu, the windows and the dialog into docs/
#   make test   install what the tests need, then run the whole suite under
#               Xvfb and a D-Bus session with an unlocked gnome-keyring
#
# Both install what is missing on a Debian machine (apt as root, else sudo,
# else they print the one command to run and stop).

SHELL := /bin/bash
GO ?= go
BIN := bin/capabilities
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

# Debian packages: Fyne's cgo build, a Secret Service and D-Bus to run; a
# virtual display and screenshots to test.
RUN_DEBS  := gcc pkg-config libgl1-mesa-dev xorg-dev dbus-x11 gnome-keyring
# xfce4-panel is the tray host the UI tests register their icon with.
TEST_DEBS := $(RUN_DEBS) xvfb xauth imagemagick xfce4-panel
# The screenshots also click the tray icon open.
SHOT_DEBS := $(TEST_DEBS) xdotool

# Everything but ui/ builds without cgo, for every release target. make test
# type-checks the headless build for each (internal/crosscheck: the files
# each target selects, with everything they import, checked from source in
# seconds); make cross compiles it for each, which from a cold cache takes
# about two minutes a target on 2 cores (every dependency is compiled anew
# for each, modernc.org/sqlite the most).
CROSS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64

NPM_DIR := testdata/npm
# go test vets each package it tests with every analyzer go vet runs
# (-vet=all), on the same race-built compile: a separate go vet ./... built
# everything a second time (from an empty cache, vet then compiling the
# race tests took 711 s, both together 384 s). go vet covers the packages
# without tests (UNTESTED).
GOTEST_FLAGS ?= -race -vet=all -timeout 15m
UNTESTED = $$($(GO) list -f '{{if not (or .TestGoFiles .XTestGoFiles)}}{{.ImportPath}}{{end}}' ./...)

.PHONY: all build run install test test-go cross crosscheck fuzz bench lint deps-run deps-test deps-npm package clean screenshots

all: build

# The first build compiles Fyne's C parts (GLFW, OpenGL) with cgo: minutes of
# silence on a small machine, so it says so first.
FYNE_CGO := fyne.io/fyne/v2/internal/driver/glfw

build: deps-run
	@if [ "$$($(GO) list -f '{{.Stale}}' $(FYNE_CGO) 2>/dev/null)" != false ]; then \
		echo "First build: compiling Fyne's C parts (cgo). This takes several minutes on a 2-core machine; later builds take seconds."; \
	fi
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./app

# Without a display the hub runs headless (scripts/run-hub.sh says how to
# approve from a terminal).
run: build
	@exec ./scripts/run-hub.sh ./$(BIN)

# The binary goes to ~/.local/bin (/usr/local/bin as root), the launcher and
# icons under share/; client entries and the start-at-login entry that ran
# another binary (this clone's bin/) are pointed at the installed one.
install: build
	@./$(BIN) install app

# Every step runs even when an earlier one fails; the failures are listed at
# the end and make test then exits non-zero.
test: deps-test deps-npm
	@./scripts/test-steps.sh \
		'vet=$(GO) vet '"$(UNTESTED)" \
		'go-test=./scripts/with-session.sh $(GO) test $(GOTEST_FLAGS) ./...' \
		'crosscheck=$(MAKE) --no-print-directory crosscheck' \
		'fuzz=$(MAKE) --no-print-directory fuzz'

# test-go expects a display and an unlocked Secret Service (see test).
test-go:
	$(GO) vet $(UNTESTED)
	$(GO) test $(GOTEST_FLAGS) ./...

# screenshots renders the tray menu (opened in xfce4-panel), every tab of
# the window, the first-run window and the approval dialog into docs/.
screenshots: deps-run
	@./scripts/need-debs.sh $(SHOT_DEBS)
	@./scripts/with-session.sh env CAPABILITIES_SCREENSHOTS=$(CURDIR)/docs $(GO) test -count=1 -run '^(TestScreenshots|TestTrayMenuScreenshot)$$' ./ui

crosscheck:
	@$(GO) run ./internal/crosscheck -tags headless $(CROSS)

cross:
	@for p in $(CROSS); do \
		echo "cross-compile (CGO_ENABLED=0, headless) $$p"; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -tags headless -o /dev/null ./... || exit 1; \
	done

# Budgets are counts, not durations: with a duration, Go 1.26's fuzzing
# coordinator can report its own deadline as a failure when a worker is
# still busy at the end (go.dev/issue/75804). About 20 s each on 2 cores.
# Each entry is PACKAGE:TARGET:COUNT; every target runs, and the failed ones
# are named at the end.
FUZZ := ./sandbox:FuzzPrepare:20000 ./sandbox:FuzzJSONToValue:30000 ./hub/policy:FuzzGate:20000 ./hub/openapi:FuzzBuildRESTRequest:20000 ./sandbox:FuzzSymbolic:20000 ./hub/catalog:FuzzCanonicalBytes:20000 ./internal/jsonstr:FuzzAppend:20000 ./hub/search:FuzzSearch:20000

fuzz:
	@failed=""; for f in $(FUZZ); do \
		pkg=$${f%%:*}; rest=$${f#*:}; target=$${rest%%:*}; count=$${rest#*:}; \
		echo "fuzz $$target in $$pkg ($$count inputs)"; \
		$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $${count}x $$pkg || failed="$$failed $$target"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz targets failed:$$failed"; exit 1; fi

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	cd bench/bleve && $(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...

deps-run:
	@./scripts/need-debs.sh $(RUN_DEBS)
	@command -v $(GO) >/dev/null || { echo "Go 1.26 is needed: https://go.dev/doc/install (Debian: /usr/local/go)"; exit 1; }
	@command -v npx >/dev/null || ./scripts/need-debs.sh nodejs npm

deps-test:
	@./scripts/need-debs.sh $(TEST_DEBS)
	@command -v $(GO) >/dev/null || { echo "Go 1.26 is needed: https://go.dev/doc/install"; exit 1; }
	@command -v npm >/dev/null || ./scripts/need-debs.sh nodejs npm
	@# The dependency tests list packages for every platform with the
	@# network off (internal/deptest): every module the build graph names
	@# must be in the module cache first.
	@$(GO) mod download

deps-npm:
	@if [ ! -d $(NPM_DIR)/node_modules ] || [ $(NPM_DIR)/package-lock.json -nt $(NPM_DIR)/node_modules/.package-lock.json ]; then \
		echo "npm ci in $(NPM_DIR) (pinned MCP test servers, TypeScript SDK, tsc)"; \
		npm ci --prefix $(NPM_DIR) --no-audit --no-fund --loglevel=error; \
	fi

# A Linux package (tar.xz with the binary, icon and desktop file) built by
# fyne package from the binary built here. fyne reads FyneApp.toml beside the
# sources and bumps its Build number, so it gets a copy.
package: deps-run
	mkdir -p dist
	$(GO) build -ldflags '$(LDFLAGS)' -o dist/capabilities ./app
	cp FyneApp.toml app/FyneApp.toml
	cd app && $(GO) run fyne.io/tools/cmd/fyne@v1.7.4 package -os linux -executable $(CURDIR)/dist/capabilities -icon $(CURDIR)/assets/icon.png -release; status=$$?; rm -f FyneApp.toml; exit $$status
	mv app/*.tar.xz dist/
	@ls -l dist/*.tar.xz

clean:
	rm -rf bin dist
