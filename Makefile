# Glob Network — the two commands: `make dev` (run it) and `make test` (test it).
SHELL := /bin/bash
.DEFAULT_GOAL := help
export REDOCLY_TELEMETRY := off
export REDOCLY_SUPPRESS_UPDATE_NOTICE := true

NODE_MODULES := node_modules/.package-lock.json
CODE_DIRS := engine backend node-agent frontend scripts bench

$(NODE_MODULES): package.json package-lock.json backend/package.json engine/package.json node-agent/package.json frontend/package.json generated/package.json
	npm ci --no-audit --no-fund
	@touch $@

.PHONY: help install dev serve test generate generate-check lint lint-spec lint-code dead-code format format-check typecheck db-migrate test-backend test-node-agent test-image build pack-node

help:
	@echo "make dev         run the whole platform with reload (embedded database if DATABASE_URL is unset)"
	@echo "make test        make lint, generated drift, unit + integration + contract + e2e tests"
	@echo "make serve       production build, then API (serving the web app) + worker on PORT (3000)"
	@echo "make generate    regenerate generated/ from api-spec/"
	@echo "make db-migrate  apply database migrations to DATABASE_URL"
	@echo "make lint        spec lint, format check, ESLint, knip (dead code) and typecheck"
	@echo "make format      format every package, scripts and bench with Prettier"
	@echo "make pack-node   the node agent as an npm tarball (node-agent/glob-node-<version>.tgz)"

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

format-check: install
	npx prettier --check $(CODE_DIRS)

# ESLint (typescript-eslint, react-hooks, import rules, the packages' boundaries) over all code.
lint-code: install
	npx eslint $(CODE_DIRS) --max-warnings 0

# knip: unused files, exports and dependencies.
dead-code: install
	npx knip

typecheck: install
	npx tsc -p engine/tsconfig.json --noEmit
	npx tsc -p backend/tsconfig.json --noEmit
	npx tsc -p node-agent/tsconfig.json --noEmit
	npx tsc -p frontend/tsconfig.json --noEmit

lint: lint-spec format-check lint-code dead-code typecheck

db-migrate: install
	npm run db:migrate -w backend

test-backend: install
	@mkdir -p .data
	cd backend && npx jest --ci --json --outputFile=../.data/jest-backend.json
	@node -e "const r=require('./.data/jest-backend.json'); console.log('backend tests: ' + r.numPassedTests + ' passed, ' + r.numFailedTests + ' failed')"

# The node agent's own unit tests (the agent against a real API: test-backend).
test-node-agent: install
	cd node-agent && npx jest --ci

pack-node: install
	cd node-agent && npm pack

# The node image (CPU variant) builds where a Docker engine runs; its Dockerfiles are linted by the node-agent tests
# either way.
test-image:
	@if docker info >/dev/null 2>&1; then docker build -q -f node-agent/Dockerfile -t glob-node:test .; \
	else echo "test-image: no Docker engine on this machine, so the node image was not built (its Dockerfile is linted by test-node-agent)"; fi

test: lint-spec format-check lint-code dead-code generate-check typecheck test-node-agent test-image test-backend
	npm test -w frontend -- --ci
	npm run test:e2e -w frontend
	@echo "make test: all checks passed"
