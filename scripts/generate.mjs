#!/usr/bin/env node
// make generate: api-spec/ (hand-written) → generated/openapi.json (bundled), generated/api.d.ts (types) and
// generated/constants.json (the business values the spec defines, for code that must not load the whole spec).
// With --check, writes to a temporary folder and fails when generated/ differs (stale or hand-edited).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const check = process.argv.includes('--check');
const out = check ? mkdtempSync(join(tmpdir(), 'glob-generated-')) : join(root, 'generated');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (cmd, args) =>
  execFileSync(cmd, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });

const FILES = ['openapi.json', 'api.d.ts', 'constants.json'];

/**
 * The schemas (by name) and operations' query parameters (by operationId) whose fields' limits are generated: what the
 * web app's forms fill, and what the server cuts a value to (a User's username, a Session's client, a
 * ConversationSummary's preview, a DownloadEvent's user agent). Kept short: constants.json ships in the web app.
 */
const FIELD_LIMITS = {
  schemas: [
    'RegisterWithOtpRequest',
    'ResetPasswordRequest',
    'DeletionOtpRequest',
    'PasskeyRegistrationRequest',
    'PasskeyRenameRequest',
    'ContactMessage',
    'Testimonial',
    'TransferRequest',
    'ApiKeyCreate',
    'ConversationUpdate',
    'ConversationSettings',
    'NodeUpdate',
    'PoolCreate',
    'DownloadEvent',
    'User',
    'Session',
    'ConversationSummary',
  ],
  queries: ['listConversations'],
};
const LIMIT_KEYWORDS = ['minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems'];

/**
 * The values backend and web app both read: the token packages (the documented answer of GET /api/wallet/packages),
 * the sampling type's fields and defaults (Sampling), the sampling parameters' defaults (InferenceParams), the display value of one GLOB in USD (Wallet's x-usd-per-glob)
 * and ranges (InferenceParams), a node's allocation ranges and defaults (NodeAllocation), a node's events call's caps
 * (NodeJobEvents), the JSON-schema limits (ChatCompletionRequest's x-json-schema-limits) and the field limits
 * (FIELD_LIMITS).
 */
function constantsOf(spec) {
  const schema = (name) => {
    const found = spec.components.schemas[name];
    if (!found) throw new Error(`The spec has no schema ${name}`);
    return found;
  };
  const deref = (node) => (node.$ref ? schema(node.$ref.split('/').at(-1)) : node);
  const params = Object.fromEntries(Object.entries(schema('InferenceParams').properties).map(([name, p]) => [name, deref(p).default]));
  // The one sampling type's fields and the defaults of those that have one (what a request leaves out).
  const sampling = schema('Sampling').properties;
  const samplingDefaults = Object.fromEntries(
    Object.entries(sampling)
      .map(([name, p]) => [name, deref(p).default])
      .filter(([, value]) => value !== undefined),
  );
  const packages = spec.paths['/api/wallet/packages'].get.responses['200'].content['application/json'].example.packages;
  const usdPerGlob = schema('Wallet')['x-usd-per-glob'];
  if (typeof usdPerGlob !== 'number') throw new Error('The Wallet schema has no x-usd-per-glob');
  const allocation = Object.fromEntries(
    Object.entries(schema('NodeAllocation').properties).map(([name, p]) => [name, { minimum: p.minimum, maximum: p.maximum, default: p.default }]),
  );
  // The sampling parameters' ranges (the conversation settings' form checks them before the server does).
  const paramRanges = Object.fromEntries(
    Object.entries(schema('InferenceParams').properties).map(([name, p]) => [name, { minimum: deref(p).minimum, maximum: deref(p).maximum }]),
  );
  const events = schema('NodeJobEvents').properties.events;
  const nodeJobEvents = { maxEvents: events['x-max-events'], maxTextBytes: events['x-max-text-bytes'] };
  if (!Number.isInteger(nodeJobEvents.maxEvents) || !Number.isInteger(nodeJobEvents.maxTextBytes)) {
    throw new Error('NodeJobEvents.events has no x-max-events / x-max-text-bytes');
  }
  const jsonSchemaLimits = schema('ChatCompletionRequest')['x-json-schema-limits'];
  if (!jsonSchemaLimits) throw new Error('ChatCompletionRequest has no x-json-schema-limits');
  // A field's limits: its own keywords over those of the schema it refers to, or of its one non-null oneOf/anyOf branch.
  const limitsOf = (node) => {
    const referred = node.$ref ? limitsOf(deref(node)) : {};
    const branches = (node.oneOf ?? node.anyOf ?? []).filter((b) => b.type !== 'null');
    const branch = branches.length === 1 ? limitsOf(branches[0]) : {};
    return { ...referred, ...branch, ...Object.fromEntries(LIMIT_KEYWORDS.filter((k) => node[k] !== undefined).map((k) => [k, node[k]])) };
  };
  const limited = (fields) => Object.fromEntries(fields.map(([name, node]) => [name, limitsOf(node)]).filter(([, l]) => Object.keys(l).length));
  const operation = (id) => {
    for (const item of Object.values(spec.paths)) {
      for (const op of Object.values(item)) if (op?.operationId === id) return { op, shared: item.parameters ?? [] };
    }
    throw new Error(`The spec has no operation ${id}`);
  };
  const queryOf = (id) => {
    const { op, shared } = operation(id);
    const params = [...shared, ...(op.parameters ?? [])].map((p) => (p.$ref ? spec.components.parameters[p.$ref.split('/').at(-1)] : p));
    return params.filter((p) => p.in === 'query').map((p) => [p.name, p.schema]);
  };
  // { Schema: { field: { minLength?, maxLength?, minimum?, maximum?, exclusiveMinimum?, exclusiveMaximum?, minItems?, maxItems? } } },
  // and { operationId: { queryParameter: {…} } }: only the fields that state a limit.
  const fieldLimits = {
    ...Object.fromEntries(FIELD_LIMITS.schemas.map((name) => [name, limited(Object.entries(schema(name).properties))])),
    ...Object.fromEntries(FIELD_LIMITS.queries.map((id) => [id, limited(queryOf(id))])),
  };
  return {
    tokenPackages: packages,
    inferenceParamDefaults: params,
    inferenceParamRanges: paramRanges,
    samplingFields: Object.keys(sampling),
    samplingDefaults,
    usdPerGlob,
    nodeAllocation: allocation,
    nodeJobEvents,
    jsonSchemaLimits,
    fieldLimits,
  };
}

try {
  run(bin('redocly'), ['bundle', 'api-spec/openapi.yaml', '--config', 'api-spec/redocly.yaml', '--ext', 'json', '-o', join(out, 'openapi.json')]);
  // Stable formatting: two-space JSON with a final newline.
  const bundled = JSON.parse(readFileSync(join(out, 'openapi.json'), 'utf8'));
  writeFileSync(join(out, 'openapi.json'), JSON.stringify(bundled, null, 2) + '\n');
  writeFileSync(join(out, 'constants.json'), JSON.stringify(constantsOf(bundled), null, 2) + '\n');
  run(bin('openapi-typescript'), [join(out, 'openapi.json'), '-o', join(out, 'api.d.ts'), '--root-types', '--alphabetize']);
  const header = '// Generated by `make generate` from api-spec/openapi.yaml. Do not edit by hand.\n';
  writeFileSync(join(out, 'api.d.ts'), header + readFileSync(join(out, 'api.d.ts'), 'utf8'));

  if (check) {
    const stale = FILES.filter((f) => {
      let committed = '';
      try {
        committed = readFileSync(join(root, 'generated', f), 'utf8');
      } catch {
        /* missing */
      }
      return committed !== readFileSync(join(out, f), 'utf8');
    });
    if (stale.length) {
      console.error(`generated/ is stale (${stale.join(', ')}): the spec changed without regenerating. Run \`make generate\` and commit the result.`);
      process.exit(1);
    }
    console.log('generated/ matches api-spec/');
  } else {
    console.log(`Wrote ${FILES.map((f) => 'generated/' + f).join(', ')}`);
  }
} catch (err) {
  console.error(err.stderr?.toString() || err.message);
  process.exit(1);
} finally {
  if (check) rmSync(out, { recursive: true, force: true });
}
