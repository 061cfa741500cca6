import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { startStack, type TestStack } from '../support/app';

/**
 * The monitoring that docker-compose.yml runs (Prometheus and Grafana, configured from ops/): no Docker here, so the
 * files are checked by parsing them, their paths against the compose mounts, every PromQL expression with Prometheus'
 * own grammar, and every metric they name against a real API's GET /metrics.
 */
const root = join(__dirname, '..', '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
// Compose's x-app-env is merged into services with `<<:`.
const yaml = (path: string): unknown => parseYaml(read(path), { merge: true });

const DASHBOARD = 'ops/grafana/dashboards/glob-network.json';
const PROMETHEUS = 'ops/prometheus/prometheus.yml';
const ALERTS = 'ops/prometheus/alerts.yml';
const DATASOURCES = 'ops/grafana/provisioning/datasources/prometheus.yml';
const PROVIDERS = 'ops/grafana/provisioning/dashboards/glob-network.yml';
const GRID_COLUMNS = 24;

// ---- The parts of a Grafana dashboard (schemaVersion 39+) that Grafana needs to load and draw it. ----
const DatasourceRef = z.object({ type: z.literal('prometheus'), uid: z.string().min(1) });
const GridPos = z
  .object({ x: z.number().int().min(0), y: z.number().int().min(0), w: z.number().int().min(1), h: z.number().int().min(1) })
  .refine((g) => g.x + g.w <= GRID_COLUMNS, `a panel ends past column ${GRID_COLUMNS}`);
const Target = z.object({
  refId: z.string().regex(/^[A-Z]$/),
  datasource: DatasourceRef,
  expr: z.string().min(1),
  legendFormat: z.string().optional(),
  instant: z.boolean().optional(),
  format: z.enum(['time_series', 'table', 'heatmap']).optional(),
});
const Panel = z
  .object({
    id: z.number().int().positive(),
    type: z.enum(['timeseries', 'stat', 'table', 'gauge', 'bargauge']),
    title: z.string().min(1),
    description: z.string().min(1),
    datasource: DatasourceRef,
    gridPos: GridPos,
    targets: z.array(Target).min(1),
    fieldConfig: z.object({
      defaults: z.record(z.string(), z.unknown()),
      overrides: z.array(z.object({ matcher: z.object({ id: z.string() }) }).loose()),
    }),
    options: z.record(z.string(), z.unknown()),
    transformations: z.array(z.object({ id: z.string().min(1), options: z.record(z.string(), z.unknown()) })).optional(),
  })
  .refine((p) => new Set(p.targets.map((t) => t.refId)).size === p.targets.length, 'refIds repeat within a panel');
const Dashboard = z.object({
  uid: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/),
  title: z.string().min(1),
  schemaVersion: z.number().int().min(39),
  editable: z.boolean(),
  refresh: z.string(),
  time: z.object({ from: z.string(), to: z.string() }),
  templating: z.object({ list: z.array(z.unknown()) }),
  annotations: z.object({ list: z.array(z.unknown()) }),
  panels: z.array(Panel).min(1),
});
type Dashboard = z.infer<typeof Dashboard>;

const Compose = z.object({
  'x-app-env': z.record(z.string(), z.string()),
  services: z.record(
    z.string(),
    z
      .object({
        image: z.string().optional(),
        entrypoint: z.array(z.string()).optional(),
        command: z.array(z.string()).optional(),
        environment: z.record(z.string(), z.string()).optional(),
        volumes: z.array(z.string()).optional(),
        ports: z.array(z.string()).optional(),
        healthcheck: z
          .object({ test: z.array(z.string()) })
          .loose()
          .optional(),
      })
      .loose(),
  ),
  volumes: z.record(z.string(), z.null()),
});

const ScrapeConfig = z.object({
  job_name: z.string(),
  metrics_path: z.literal('/metrics'),
  authorization: z.object({ type: z.literal('Bearer'), credentials_file: z.string().startsWith('/') }).strict(),
  static_configs: z.array(z.object({ targets: z.array(z.string().regex(/^[a-z-]+:\d+$/)).min(1) })).min(1),
});
const PrometheusConfig = z.object({
  global: z.object({ scrape_interval: z.string(), evaluation_interval: z.string() }).loose(),
  rule_files: z.array(z.string()),
  scrape_configs: z.array(ScrapeConfig).min(1),
});
const AlertRules = z.object({
  groups: z
    .array(
      z.object({
        name: z.string(),
        rules: z
          .array(
            z
              .object({
                alert: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
                expr: z.string().min(1),
                for: z.string().regex(/^\d+[smh]$/),
                labels: z.object({ severity: z.enum(['warning', 'critical']) }),
                annotations: z.object({ summary: z.string().min(1) }),
              })
              .strict(),
          )
          .min(1),
      }),
    )
    .min(1),
});
const Datasources = z.object({
  apiVersion: z.literal(1),
  datasources: z
    .array(z.object({ name: z.string(), uid: z.string(), type: z.literal('prometheus'), access: z.literal('proxy'), url: z.string().url() }).loose())
    .length(1),
});
const Providers = z.object({
  apiVersion: z.literal(1),
  providers: z
    .array(z.object({ name: z.string(), type: z.literal('file'), options: z.object({ path: z.string().startsWith('/') }) }).loose())
    .length(1),
});

// ---- PromQL ----
/** Grafana's built-in interval variables, replaced as Grafana does before the query reaches Prometheus. */
const GRAFANA_VARIABLES: Record<string, string> = { $__rate_interval: '1m', $__interval: '15s', $__range: '1h' };

/** Parses one expression with Prometheus' own grammar; the metric names it selects, or the first syntax error. */
function promql(expr: string): { metrics: string[]; error?: string } {
  const text = expr.replace(/\$__\w+/g, (v) => GRAFANA_VARIABLES[v] ?? v);
  if (text.includes('$')) return { metrics: [], error: `unknown variable in ${expr}` };
  const metrics: string[] = [];
  let error: string | undefined;
  parser.parse(text).iterate({
    enter(node) {
      if (node.type.isError && error === undefined) error = `syntax error at ${node.from} in ${text}`;
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') metrics.push(text.slice(node.from, node.to));
    },
  });
  return { metrics, error };
}

function rectanglesOverlap(a: Dashboard['panels'][number]['gridPos'], b: Dashboard['panels'][number]['gridPos']) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

const dashboard = Dashboard.parse(JSON.parse(read(DASHBOARD)));
const rules = AlertRules.parse(yaml(ALERTS));
const expressions = [
  ...dashboard.panels.flatMap((p) => p.targets.map((t) => ({ where: `panel "${p.title}" ${t.refId}`, expr: t.expr }))),
  ...rules.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr }))),
];
/** Series Prometheus makes itself for each target rather than reading them from /metrics. */
const PROMETHEUS_OWN = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped']);

describe('monitoring configuration (compose, Prometheus, Grafana)', () => {
  const compose = Compose.parse(yaml('docker-compose.yml'));
  const svc = (name: string) => {
    const s = compose.services[name];
    if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
    return s;
  };
  /** Where compose mounts a repository path (`./ops/...`) inside a service's container. */
  const mountOf = (service: string, hostPath: string) => {
    const v = svc(service).volumes?.find((m) => m.split(':')[0] === hostPath);
    if (!v) throw new Error(`${service} does not mount ${hostPath}`);
    const [, container, mode] = v.split(':');
    return { container: container!, mode };
  };

  it('the dashboard is a Grafana dashboard: unique panel ids, panels inside the grid that never overlap', () => {
    expect(dashboard.title).toBe('Glob Network');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const overlaps: string[] = [];
    dashboard.panels.forEach((a, i) =>
      dashboard.panels.slice(i + 1).forEach((b) => {
        if (rectanglesOverlap(a.gridPos, b.gridPos)) overlaps.push(`"${a.title}" and "${b.title}"`);
      }),
    );
    expect(overlaps).toEqual([]);
  });

  it('every panel and query names the provisioned Prometheus data source by its uid', () => {
    const [source] = Datasources.parse(yaml(DATASOURCES)).datasources;
    expect(source!.url).toBe('http://prometheus:9090');
    const refs = dashboard.panels.flatMap((p) => [p.datasource, ...p.targets.map((t) => t.datasource)]);
    expect(refs.filter((r) => r.uid !== source!.uid)).toEqual([]);
  });

  it('Grafana loads the dashboard from where compose mounts it, read only, and is reachable from this machine only', () => {
    const { providers } = Providers.parse(yaml(PROVIDERS));
    const dashboards = mountOf('grafana', './ops/grafana/dashboards');
    expect(dashboards).toEqual({ container: providers[0]!.options.path, mode: 'ro' });
    for (const dir of ['datasources', 'dashboards']) {
      expect(mountOf('grafana', `./ops/grafana/provisioning/${dir}`)).toEqual({ container: `/etc/grafana/provisioning/${dir}`, mode: 'ro' });
    }
    const env = svc('grafana').environment!;
    expect(env.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH).toBe(posix.join(dashboards.container, posix.basename(DASHBOARD)));
    expect(env.GF_SECURITY_ADMIN_PASSWORD).toMatch(/^\$\{GRAFANA_ADMIN_PASSWORD:\?/);
    expect(env.GF_AUTH_ANONYMOUS_ENABLED).toBe('false');
    expect(svc('grafana').ports).toEqual(['127.0.0.1:3001:3000']);
    expect(svc('grafana').image).toMatch(/^grafana\/grafana:/);
  });

  it('Prometheus scrapes the API and the worker with the token from .env, which no file of the repository holds', () => {
    const config = PrometheusConfig.parse(yaml(PROMETHEUS));
    const prometheus = svc('prometheus');
    expect(prometheus.image).toMatch(/^prom\/prometheus:/);
    expect(prometheus.ports).toEqual(['127.0.0.1:9090:9090']);
    const etc = mountOf('prometheus', './ops/prometheus');
    expect(etc.mode).toBe('ro');
    expect(prometheus.command).toContain(`--config.file=${posix.join(etc.container, 'prometheus.yml')}`);
    for (const file of config.rule_files) {
      expect(file.startsWith(`${etc.container}/`)).toBe(true);
      expect(existsSync(join(root, 'ops/prometheus', posix.relative(etc.container, file)))).toBe(true);
    }
    // The token: required in .env, handed to the API, the worker and Prometheus, and written by Prometheus'
    // entrypoint into the very file its scrape configs read.
    const required = /^\$\{METRICS_TOKEN:\?/;
    expect(compose['x-app-env'].METRICS_TOKEN).toMatch(required);
    expect(svc('api').environment?.METRICS_TOKEN ?? compose['x-app-env'].METRICS_TOKEN).toMatch(required);
    expect(svc('worker').environment!.METRICS_TOKEN).toMatch(required);
    expect(prometheus.environment!.METRICS_TOKEN).toMatch(required);
    const script = prometheus.entrypoint!.join(' ');
    for (const scrape of config.scrape_configs) {
      expect(script).toContain(`"$$METRICS_TOKEN" > ${scrape.authorization.credentials_file}`);
    }
    expect(read(PROMETHEUS)).not.toMatch(/credentials:/);
    expect(read('.env.example')).toMatch(/^METRICS_TOKEN=change-me/m);
    expect(read('.env.example')).toMatch(/^GRAFANA_ADMIN_PASSWORD=change-me/m);

    const targets = Object.fromEntries(config.scrape_configs.map((s) => [s.job_name, s.static_configs.flatMap((c) => c.targets)]));
    expect(targets).toEqual({ api: ['api:3000'], worker: [`worker:${svc('worker').environment!.WORKER_PORT}`] });
    expect(svc('worker').environment!.WORKER_PORT).toBe('9464');
    expect(svc('worker').healthcheck!.test.join(' ')).toContain('http://localhost:9464/api/health/ready');
    for (const volume of ['prometheus-data', 'grafana-data']) expect(compose.volumes).toHaveProperty(volume);
  });

  it.each(expressions)('PromQL of $where parses', ({ expr }) => {
    const { metrics, error } = promql(expr);
    expect(error).toBeUndefined();
    expect(metrics.length).toBeGreaterThan(0);
    // A quantile from a histogram keeps its buckets apart.
    if (/histogram_quantile/.test(expr)) expect(expr).toMatch(/by \((le|[^)]*, le)[,)]/);
  });

  it('answers from the dashboard alone: replies waiting, how fast tokens flow, which node is failing', () => {
    const exprsOf = (title: RegExp) => dashboard.panels.filter((p) => title.test(p.title)).flatMap((p) => p.targets.map((t) => t.expr));
    expect(exprsOf(/^Replies waiting$/).join()).toMatch(/glob_queue_jobs\{queue=~"inference.+", state="waiting"\}/);
    expect(exprsOf(/tokens\/s/i).join()).toMatch(/rate\(glob_inference_tokens_total\{type="completion"\}/);
    expect(exprsOf(/tokens\/s/i).join()).toMatch(/histogram_quantile\(0\.5, .*glob_inference_tokens_per_second_bucket/);
    const failing = dashboard.panels.find((p) => p.type === 'table' && /failing/i.test(p.title));
    expect(failing?.targets[0]!.expr).toMatch(/glob_node_tasks_last_hour\{status="failed"\}/);
    expect(failing?.transformations?.map((t) => t.id)).toContain('sortBy');
  });
});

describe('monitoring against a real GET /metrics', () => {
  const token = 'observability-config-test-token';
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ env: { METRICS_TOKEN: token } });
  });
  afterAll(() => stack.close());

  it('every metric the dashboard and the alert rules name is on /metrics, and every glob_ metric is on the dashboard', async () => {
    await stack.http.get('/metrics').expect(401);
    await stack.http.get('/metrics').set('authorization', 'Bearer not-the-token-at-all').expect(401);
    const res = await stack.http.get('/metrics').set('authorization', `Bearer ${token}`).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
    // prom-client prints `# TYPE` for every registered metric, labelled or not, before any observation; a sample's
    // name is the family's, or with _bucket, _sum and _count for a histogram (_sum and _count for a summary).
    const exposed = new Set<string>();
    const families = new Set<string>();
    for (const [, name, type] of res.text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      families.add(name!);
      const suffixes = type === 'histogram' ? ['_bucket', '_sum', '_count'] : type === 'summary' ? ['', '_sum', '_count'] : [''];
      for (const s of suffixes) exposed.add(name! + s);
    }
    const used = new Map<string, string>();
    for (const { where, expr } of expressions) for (const m of promql(expr).metrics) used.set(m, where);
    const missing = [...used].filter(([m]) => !exposed.has(m) && !PROMETHEUS_OWN.has(m)).map(([m, where]) => `${m} (${where})`);
    expect(missing).toEqual([]);

    const usedFamilies = new Set([...used.keys()].map((m) => m.replace(/_(bucket|sum|count)$/, '')));
    const unshown = [...families].filter((f) => f.startsWith('glob_') && !usedFamilies.has(f) && !used.has(f));
    expect(unshown).toEqual([]);
  });
});
