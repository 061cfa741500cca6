# Glob Network — the two commands: `make dev` (run it) and `make test` (test it).
SHELL := /bin/bash
.DEFAULT_GOAL := help
export REDOCLY_TELEMETRY := off
export REDOCLY_SUPPRESS_UPDATE_NOTICE := true

NODE_MODULES := node_modules/.package-lock.json
CODE_DIRS := engine testing backend node-agent ui frontend scripts bench

$(NODE_MODULES): package.json package-lock.json backend/package.json engine/package.json testing/package.json node-agent/package.json frontend/package.json generated/package.json ui/package.json
	npm ci --no-audit --no-fund
	@touch $@

.PHONY: help install dev serve test test-fast test-e2e-build test-e2e test-readme test-frontend test-backend-fast generate generate-check lint lint-spec lint-code dead-code format format-check typecheck db-migrate test-backend test-node-agent test-image build pack-node

help:
	@echo "make dev         run the whole platform with reload (embedded database if DATABASE_URL is unset)"
	@echo "make test        make lint, generated drift, unit + integration + contract + e2e tests (stages in parallel)"
	@echo "make test-fast   lint, generated drift, typecheck, backend unit + contract, node-agent and frontend jest: no browser"
	@echo "make serve       production build, then API (serving the web app) + worker on PORT (3000)"
	@echo "make generate    regenerate generated/ from api-spec/"
	@echo "make db-migrate  apply database migrations to DATABASE_URL"
	@echo "make lint        spec lint, format check, ESLint, knip (dead code) and typecheck"
	@echo "make format      format every package, scripts and bench with Prettier"
	@echo "make pack-node   the node agent as an npm tarball (node-agent/glob-node-<version>.tgz)"
	@echo "make release     the desktop app for every platform + signed manifest (.data/release/<version>/; RELEASE_ARGS=...)"

install: $(NODE_MODULES)

dev: install
	node scripts/dev.mjs

serve: install
	node scripts/serve.mjs

build: install
	npm run build -w backend
	npm run build -w glob-node
	npm run build -w frontend

generate: install
	node scripts/generate.mjs

generate-check: install
	node scripts/generate.mjs --check

lint-spec: install
	npx redocly lint api-spec/openapi.yaml --config api-spec/redocly.yaml --format stylish

format: install
	npx prettier --write $(CODE_DIRS)

# --cache: files found formatted are remembered by their content (node_modules/.cache/prettier) and not read again.
format-check: install
	npx prettier --check --cache --cache-strategy content $(CODE_DIRS)

# ESLint (typescript-eslint, react-hooks, import rules, the packages' boundaries) over all code.
lint-code: install
	npx eslint $(CODE_DIRS) --max-warnings 0

# knip: unused files, exports and dependencies.
dead-code: install
	npx knip

# Incremental: tsc keeps what it learnt in .data/tsc/ and on the next run re-checks only what changed (and what depends
# on it); a fresh clone checks everything.
TSC := npx tsc --noEmit --incremental
typecheck: install
	$(TSC) -p engine/tsconfig.json --tsBuildInfoFile .data/tsc/engine.tsbuildinfo
	$(TSC) -p testing/tsconfig.json --tsBuildInfoFile .data/tsc/testing.tsbuildinfo
	$(TSC) -p backend/tsconfig.json --tsBuildInfoFile .data/tsc/backend.tsbuildinfo
	$(TSC) -p node-agent/tsconfig.json --tsBuildInfoFile .data/tsc/node-agent.tsbuildinfo
	$(TSC) -p node-agent/panel/tsconfig.json --tsBuildInfoFile .data/tsc/node-agent-panel.tsbuildinfo
	$(TSC) -p ui/tsconfig.json --tsBuildInfoFile .data/tsc/ui.tsbuildinfo
	$(TSC) -p frontend/tsconfig.json --tsBuildInfoFile .data/tsc/frontend.tsbuildinfo

lint: lint-spec format-check lint-code dead-code typecheck

db-migrate: install
	npm run db:migrate -w backend

# The backend's jest projects (backend/jest.config.js): unit, integration (PostgreSQL + Redis), contract. All three here;
# JEST_PROJECTS="unit contract" selects some; JEST_WORKERS=n overrides the config's maxWorkers. Per-file times stay in
# .data/jest-backend.json.
JEST_PROJECTS ?=
JEST_WORKERS ?=
test-backend: install
	@mkdir -p .data
	cd backend && npx jest --ci $(if $(JEST_PROJECTS),--selectProjects $(JEST_PROJECTS)) $(if $(JEST_WORKERS),--maxWorkers=$(JEST_WORKERS)) --json --outputFile=../.data/jest-backend.json; \
	  status=$$?; node ../scripts/jest-summary.mjs ../.data/jest-backend.json backend; exit $$status

# The fast tier's backend part: unit and contract tests (the contract tests do use PostgreSQL and Redis).
test-backend-fast: install
	@$(MAKE) --no-print-directory test-backend JEST_PROJECTS="unit contract"

# The node agent's own unit tests (the agent against a real API: test-backend).
test-node-agent: install
	cd node-agent && npx jest --ci

pack-node: install
	cd node-agent && npm pack

# The desktop app's release (scripts/release/build.mjs): .deb, tar.gz, msi and zips, each with its own Node.js and
# llama.cpp binaries from the npm registry (cached in ~/.cache/glob-network/release), then the signed manifest, into
# .data/release/<version>/. RELEASE_ARGS="--version 0.2.0 --changelog CHANGES.md" passes options; the signing key is
# RELEASE_SIGNING_KEY or RELEASE_SIGNING_KEY_FILE (else a development key, said loudly).
.PHONY: release test-release
RELEASE_ARGS ?=
release: install
	node scripts/release/build.mjs $(RELEASE_ARGS)

# Every asset built with a throwaway key into .data/release-test/<version>/, then read back and checked.
test-release: install
	node scripts/release/test-build.mjs
	node --test --test-reporter=spec scripts/release/*.test.mjs

# The node image (CPU variant) builds where a Docker engine runs; its Dockerfiles are linted by the node-agent tests
# either way.
test-image:
	@if docker info >/dev/null 2>&1; then docker build -q -f node-agent/Dockerfile -t glob-node:test .; \
	else echo "test-image: no Docker engine on this machine, so the node image was not built (its Dockerfile is linted by test-node-agent)"; fi

test-frontend: install
	@mkdir -p .data
	npm test -w frontend -- --ci --json --outputFile=../.data/jest-frontend.json; \
	  status=$$?; node scripts/jest-summary.mjs .data/jest-frontend.json frontend; exit $$status

# Playwright's builds (backend, web app, mocked web app, the desktop app's panel), then Playwright on them (E2E_SKIP_BUILD=1: on the builds there are).
test-e2e-build: install
	npm run --silent build -w backend
	npm run --silent build -w frontend
	npm run --silent build:mock -w frontend
	npm run --silent build:panel -w glob-node

# The README's first-hour paths followed as written (make dev, "Try it on one machine" with a paired agent, Ctrl-C), on
# free ports, on the builds test-e2e-build made (scripts/readme-paths.test.mjs).
test-readme: install
	node --test --test-reporter=spec scripts/readme-paths.test.mjs

# E2E_LOCK=/tmp/e2e.lock: Playwright waits for that lock (flock), where several checkouts share one machine.
E2E_LOCK ?=
test-e2e: install
	$(if $(E2E_LOCK),flock $(E2E_LOCK)) npm run test:e2e -w frontend

# Every stage, independent ones in parallel (scripts/test-stages.mjs: each stage's output printed whole when it ends, then
# a table of times); TEST_JOBS=1 runs them one after another.
test: install
	node scripts/test-stages.mjs full

# No browser, no llama.cpp build, no integration tests: about two minutes.
test-fast: install
	node scripts/test-stages.mjs fast
