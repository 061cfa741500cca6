/**
 * The Kubernetes manifests (deploy/kubernetes): the base and every overlay, rendered by `kubectl kustomize` (offline),
 * each object validated against the Kubernetes API schemas (kubernetes-models), then checked for what the platform
 * needs of it: the processes and commands of docker-compose.yml, the settings config.ts requires in production, the
 * spec's health paths, GPU workers per model, the autoscaler, the disruption budgets and the migrations before the API.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { importEsmPackage } from '@glob/engine/esm';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment' with { 'resolution-mode': 'import' };
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler' with { 'resolution-mode': 'import' };
import type { IJob } from 'kubernetes-models/batch/v1/Job' with { 'resolution-mode': 'import' };
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress' with { 'resolution-mode': 'import' };
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget' with { 'resolution-mode': 'import' };
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap' with { 'resolution-mode': 'import' };
import type { IContainer } from 'kubernetes-models/v1/Container' with { 'resolution-mode': 'import' };
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec' with { 'resolution-mode': 'import' };
import type { IService } from 'kubernetes-models/v1/Service' with { 'resolution-mode': 'import' };
import { loadConfig, REPO_ROOT } from '../../src/config/config';

const DEPLOY = join(REPO_ROOT, 'deploy', 'kubernetes');
const KUBECTL = process.env.KUBECTL ?? 'kubectl';
/** The image name the base gives every container; overlays replace it with their registry's (kustomize `images:`). */
const BASE_IMAGE = 'glob-network';
/** The model workers' image: the Dockerfile's cuda variant. */
const CUDA_IMAGE = 'glob-network-cuda';
const SECRET_NAME = 'glob-secrets';

/**
 * Every kind the manifests may emit, by apiVersion/kind, and the kubernetes-models module that validates it. A kind
 * missing here fails the test: add it, and its model, when the manifests start using it.
 */
const MODELS: Record<string, string> = {
  'v1/ConfigMap': 'v1/ConfigMap',
  'v1/Namespace': 'v1/Namespace',
  'v1/PersistentVolumeClaim': 'v1/PersistentVolumeClaim',
  'v1/Service': 'v1/Service',
  'apps/v1/Deployment': 'apps/v1/Deployment',
  'batch/v1/Job': 'batch/v1/Job',
  'autoscaling/v2/HorizontalPodAutoscaler': 'autoscaling/v2/HorizontalPodAutoscaler',
  'policy/v1/PodDisruptionBudget': 'policy/v1/PodDisruptionBudget',
  'networking.k8s.io/v1/Ingress': 'networking.k8s.io/v1/Ingress',
};

/**
 * The keys of the Secret operators create from their secret store, each with a value of the shape config.ts accepts
 * (the checks below load the configuration with them). deploy/kubernetes/README.md lists the same keys.
 */
const SECRET_SAMPLES: Record<string, string> = {
  DATABASE_URL: 'postgres://glob:password@postgres.example:5432/glob',
  REDIS_URL: 'rediss://:password@redis.example:6379',
  JWT_ACCESS_SECRET: 'a'.repeat(48),
  JWT_REFRESH_SECRET: 'b'.repeat(48),
  TWO_FACTOR_KEY: 'c'.repeat(64),
  METRICS_TOKEN: 'm'.repeat(32),
  SMTP_URL: 'smtp://user:password@smtp.example:587',
  STRIPE_SECRET_KEY: 'sk_test_sample',
  STRIPE_WEBHOOK_SECRET: 'whsec_sample',
};

/** What a cluster needs beyond what config.ts refuses to start without: its defaults point at this machine or at nothing. */
const NEEDED = {
  // 127.0.0.1 inside a pod is the pod; without METRICS_TOKEN /metrics is off; without SMTP_URL no code reaches anyone.
  api: ['DATABASE_URL', 'REDIS_URL', 'METRICS_TOKEN', 'SMTP_URL', 'PORT'],
  // Without WORKER_PORT the worker has no probes and no /metrics.
  worker: ['DATABASE_URL', 'REDIS_URL', 'METRICS_TOKEN', 'SMTP_URL', 'WORKER_PORT', 'WORKER_MODELS'],
  cli: ['DATABASE_URL'],
};

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

type Validator = new (data: K8sObject) => { validate(): void };

interface Rendered {
  name: string;
  dir: string;
  objects: K8sObject[];
}

const kindKey = (o: Pick<K8sObject, 'apiVersion' | 'kind'>) => `${o.apiVersion}/${o.kind}`;
const ofKind = <T>(objects: K8sObject[], kind: string): T[] => objects.filter((o) => o.kind === kind) as unknown as T[];
const nameOf = (o: { metadata?: { name?: string } }) => o.metadata?.name ?? '(unnamed)';

function render(dir: string): K8sObject[] {
  let text: string;
  try {
    text = execFileSync(KUBECTL, ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT')
      throw new Error(`${KUBECTL} is not installed: the manifests are rendered with \`kubectl kustomize\` (set KUBECTL)`, { cause: err });
    throw new Error(`kubectl kustomize ${dir} failed: ${e.stderr ?? e.message}`, { cause: err });
  }
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length) throw new Error(`${dir}: ${doc.errors.map((x) => x.message).join('; ')}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

/** The base and every overlay: what an operator applies. */
const targets: Array<[string, string]> = [
  ['base', join(DEPLOY, 'base')],
  ...readdirSync(join(DEPLOY, 'overlays'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d): [string, string] => [`overlays/${d.name}`, join(DEPLOY, 'overlays', d.name)]),
];

/** The processes docker-compose.yml runs: the manifests start the same ones. */
const compose = parse(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, { command?: string[] }> };
const COMMANDS = {
  api: compose.services.api!.command!,
  worker: compose.services.worker!.command!,
  migrate: compose.services.migrate!.command!,
};

/** The health paths from the bundled spec, by operationId, so the probes follow the spec. */
const spec = JSON.parse(readFileSync(join(REPO_ROOT, 'generated', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string }>>;
};
function specPath(operationId: string): string {
  const found = Object.entries(spec.paths).find(([, item]) => item.get?.operationId === operationId);
  if (!found) throw new Error(`No GET operation ${operationId} in generated/openapi.json`);
  return found[0];
}
const LIVE = specPath('getLiveness');
const READY = specPath('getReadiness');

/** The variables config.ts reads (its envSchema's keys, and the OAUTH_<PROVIDER>_… family), to catch misspelt names. */
const configSource = readFileSync(join(REPO_ROOT, 'backend', 'src', 'config', 'config.ts'), 'utf8');
const schemaStart = configSource.indexOf('const envSchema = z.object({');
const schemaBlock = configSource.slice(schemaStart, configSource.indexOf('\n});', schemaStart));
const CONFIG_VARS = new Set([...schemaBlock.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!));
const isConfigVar = (name: string) => CONFIG_VARS.has(name) || /^OAUTH_(GOOGLE|GITHUB|MICROSOFT)_[A-Z_]+$/.test(name);

const BUILT_IN_CATALOG = JSON.parse(readFileSync(join(REPO_ROOT, 'backend', 'models', 'catalog.example.json'), 'utf8')) as {
  models: Array<{ id: string }>;
};

const podSpec = (w: IDeployment | IJob): IPodSpec => w.spec!.template.spec!;
const containersOf = (w: IDeployment | IJob): IContainer[] => [...(podSpec(w).initContainers ?? []), ...podSpec(w).containers];
const commandLine = (c: IContainer) => [...(c.command ?? []), ...(c.args ?? [])].join(' ');
/** Which of the platform's entry points a container runs (each loads the whole configuration). */
function processOf(c: IContainer): keyof typeof NEEDED | null {
  const line = commandLine(c);
  if (line.includes('backend/dist/main.js')) return 'api';
  if (line.includes('backend/dist/worker.js')) return 'worker';
  if (line.includes('backend/dist/database/cli.js')) return 'cli';
  return null;
}
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

interface SecretRef {
  key: string;
  optional: boolean;
}
interface ContainerEnv {
  values: Record<string, string>;
  secrets: Record<string, SecretRef>;
  problems: string[];
}

/** A container's environment as Kubernetes would build it; secrets get sample values, and what cannot resolve is a problem. */
function resolveEnv(c: IContainer, objects: K8sObject[]): ContainerEnv {
  const configMaps = ofKind<IConfigMap>(objects, 'ConfigMap');
  const configMap = (name: string) => configMaps.find((m) => nameOf(m) === name);
  const out: ContainerEnv = { values: {}, secrets: {}, problems: [] };
  for (const from of c.envFrom ?? []) {
    if (from.secretRef) out.problems.push(`${c.name}: envFrom a Secret hides which keys it needs; name each key with secretKeyRef`);
    if (from.configMapRef) {
      const map = configMap(from.configMapRef.name!);
      if (!map) out.problems.push(`${c.name}: envFrom ConfigMap ${from.configMapRef.name} is not rendered`);
      else Object.assign(out.values, map.data);
    }
  }
  for (const e of c.env ?? []) {
    const ref = e.valueFrom;
    if (e.value !== undefined) out.values[e.name] = e.value;
    else if (ref?.secretKeyRef) {
      const { name, key, optional } = ref.secretKeyRef;
      if (name !== SECRET_NAME) out.problems.push(`${c.name}: ${e.name} comes from Secret ${name}, not ${SECRET_NAME}`);
      if (!(key in SECRET_SAMPLES)) out.problems.push(`${c.name}: ${e.name} reads key ${key}, which the Secret's documented keys lack`);
      out.secrets[e.name] = { key, optional: optional ?? false };
      out.values[e.name] = SECRET_SAMPLES[key] ?? 'sample';
    } else if (ref?.configMapKeyRef) {
      const { name, key } = ref.configMapKeyRef;
      const value = configMap(name!)?.data?.[key];
      if (value === undefined) out.problems.push(`${c.name}: ${e.name} reads ${key} of ConfigMap ${name}, which is not rendered`);
      else out.values[e.name] = value;
    } else if (ref?.fieldRef) out.values[e.name] = `field:${ref.fieldRef.fieldPath}`;
    else out.problems.push(`${c.name}: ${e.name} has no value`);
  }
  return out;
}

/** A named or numbered container port, as a number. */
function portNumber(c: IContainer, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return c.ports?.find((p) => p.name === port)?.containerPort;
}

const validators = new Map<string, Validator>();

beforeAll(async () => {
  // kubernetes-models ships ES modules only; the engine's loader imports them from this CommonJS test.
  const root = join(REPO_ROOT, 'node_modules', 'kubernetes-models');
  for (const [key, module] of Object.entries(MODELS)) {
    const kind = module.split('/').pop()!;
    const loaded = await importEsmPackage<Record<string, Validator>>(join(root, `${module}.js`));
    validators.set(key, loaded[kind]!);
  }
});

it('finds the spec health paths, the compose commands and config.ts variables it checks against', () => {
  expect([LIVE, READY]).toEqual(['/api/health/live', '/api/health/ready']);
  expect(COMMANDS.migrate).toEqual(['node', 'backend/dist/database/cli.js', 'migrate']);
  expect(CONFIG_VARS.size).toBeGreaterThan(50);
  expect([...CONFIG_VARS]).toEqual(expect.arrayContaining(['DATABASE_URL', 'WORKER_MODELS', 'METRICS_TOKEN', 'WORKER_PORT']));
  expect(targets.map(([name]) => name)).toContain('overlays/example');
});

it('documents every key of the Secret in deploy/kubernetes/README.md', () => {
  const readme = readFileSync(join(DEPLOY, 'README.md'), 'utf8');
  expect(Object.keys(SECRET_SAMPLES).filter((key) => !readme.includes(key))).toEqual([]);
});

describe.each(targets)('%s', (name, dir) => {
  let r: Rendered;
  let deployments: IDeployment[];
  let jobs: IJob[];

  beforeAll(() => {
    r = { name, dir, objects: render(dir) };
    deployments = ofKind<IDeployment>(r.objects, 'Deployment');
    jobs = ofKind<IJob>(r.objects, 'Job');
  });

  const workloads = () => [...deployments, ...jobs];
  const running = (command: string[]) => deployments.filter((d) => podSpec(d).containers.some((c) => commandLine(c) === command.join(' ')));
  const apiDeployment = () => {
    const found = running(COMMANDS.api);
    expect(found.map(nameOf)).toHaveLength(1);
    return found[0]!;
  };
  const workerDeployments = () => running(COMMANDS.worker);
  const mainContainer = (d: IDeployment | IJob) => podSpec(d).containers[0]!;

  it('renders only kinds it knows, each valid against the Kubernetes API schema', () => {
    expect(r.objects.length).toBeGreaterThan(0);
    const errors: string[] = [];
    for (const o of r.objects) {
      const Model = validators.get(kindKey(o));
      if (!Model) {
        errors.push(`${kindKey(o)} ${nameOf(o)}: no kubernetes-models class mapped for this kind`);
        continue;
      }
      try {
        new Model(o).validate();
      } catch (err) {
        errors.push(`${kindKey(o)} ${nameOf(o)}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    expect(errors).toEqual([]);
    const names = r.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${nameOf(o)}`);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('holds no Secret with values: secrets come from the operator’s secret store', () => {
    const withValues = r.objects.filter((o) => o.kind === 'Secret' && (o.data !== undefined || o.stringData !== undefined));
    expect(withValues.map(nameOf)).toEqual([]);
  });

  it('runs the image of the repository’s Dockerfile, the model workers its cuda variant, from the overlay’s registry and tags', () => {
    // Each container and the image it should run: a model worker's own container the CUDA one, everything else the CPU one.
    const models = new Set<unknown>(workerDeployments().filter((d) => resolveEnv(mainContainer(d), r.objects).values.WORKER_MODELS !== 'none'));
    const containers = workloads().flatMap((w) =>
      containersOf(w).map((c) => ({ where: `${nameOf(w)}/${c.name}`, image: c.image, cuda: models.has(w) && c === mainContainer(w) })),
    );
    expect(containers.filter((c) => c.cuda).length).toBe(models.size);
    let images = { cpu: BASE_IMAGE, cuda: CUDA_IMAGE };
    if (name !== 'base') {
      const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as {
        images?: Array<{ name: string; newName?: string; newTag?: string }>;
      };
      const [cpu, cuda] = [BASE_IMAGE, CUDA_IMAGE].map((n) => kustomization.images?.find((i) => i.name === n));
      for (const set of [cpu, cuda]) expect([set?.newName, set?.newTag].every(Boolean)).toBe(true);
      images = { cpu: `${cpu!.newName}:${cpu!.newTag}`, cuda: `${cuda!.newName}:${cuda!.newTag}` };
      expect(images.cuda).not.toBe(images.cpu);
    }
    expect(containers.filter((c) => c.image !== (c.cuda ? images.cuda : images.cpu)).map((c) => `${c.where}: ${c.image}`)).toEqual([]);
  });

  it('starts the API, the workers and the migrations with docker-compose.yml’s commands', () => {
    apiDeployment();
    expect(workerDeployments().length).toBeGreaterThanOrEqual(2);
    const migrate = jobs.filter((j) => podSpec(j).containers.some((c) => commandLine(c) === COMMANDS.migrate.join(' ')));
    expect(migrate.map(nameOf)).toHaveLength(1);
    expect(podSpec(migrate[0]!).restartPolicy).toBe('Never');
  });

  it('keeps the API and the workers waiting until the migrations have run', () => {
    const missing = [apiDeployment(), ...workerDeployments()].filter(
      (d) => !(podSpec(d).initContainers ?? []).some((c) => /until node backend\/dist\/database\/cli\.js status;/.test(commandLine(c))),
    );
    expect(missing.map(nameOf)).toEqual([]);
  });

  it('gives every process what production requires, secrets only from the Secret, and no unknown variable', () => {
    const problems: string[] = [];
    for (const w of workloads()) {
      for (const c of containersOf(w)) {
        const where = `${nameOf(w)}/${c.name}`;
        const env = resolveEnv(c, r.objects);
        problems.push(...env.problems.map((p) => `${nameOf(w)}/${p}`));
        for (const n of Object.keys(env.values)) if (!isConfigVar(n)) problems.push(`${where}: ${n} is not a variable config.ts reads`);
        for (const key of Object.keys(SECRET_SAMPLES)) {
          if (key in env.values && !(key in env.secrets)) problems.push(`${where}: ${key} is a secret but is set from a value or a ConfigMap`);
        }
        const kind = processOf(c);
        if (!kind) continue;
        if (env.values.NODE_ENV !== 'production') problems.push(`${where}: NODE_ENV is ${env.values.NODE_ENV}, not production`);
        for (const n of NEEDED[kind]) {
          if (!env.values[n]) problems.push(`${where}: ${n} is not set`);
          if (env.secrets[n]?.optional) problems.push(`${where}: ${n} is needed, but its Secret key is optional`);
        }
        try {
          loadConfig(env.values);
        } catch (err) {
          problems.push(`${where}: config.ts refuses it: ${err instanceof Error ? err.message : String(err)}`);
          continue;
        }
        // A key without which config.ts refuses production must be required of the Secret, or the pod fails later.
        for (const [n, ref] of Object.entries(env.secrets)) {
          if (!ref.optional) continue;
          const without: Record<string, string> = { ...env.values };
          delete without[n];
          try {
            loadConfig(without);
          } catch {
            problems.push(`${where}: ${n} is required in production, but its Secret key is optional`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('probes the spec’s liveness and readiness paths on each process’s own port', () => {
    const problems: string[] = [];
    for (const d of [apiDeployment(), ...workerDeployments()]) {
      const c = mainContainer(d);
      const env = resolveEnv(c, r.objects).values;
      const port = Number(processOf(c) === 'api' ? (env.PORT ?? 3000) : env.WORKER_PORT);
      const check = (probe: 'readinessProbe' | 'livenessProbe' | 'startupProbe', paths: string[]) => {
        const get = c[probe]?.httpGet;
        if (!get) return problems.push(`${nameOf(d)}: no ${probe} over HTTP`);
        if (!paths.includes(get.path ?? '')) problems.push(`${nameOf(d)}: ${probe} asks ${get.path}, not ${paths.join(' or ')}`);
        if (portNumber(c, get.port) !== port) problems.push(`${nameOf(d)}: ${probe} asks port ${get.port}, not the process's ${port}`);
      };
      check('readinessProbe', [READY]);
      check('livenessProbe', [LIVE]);
      if (c.startupProbe) check('startupProbe', [LIVE, READY]);
    }
    expect(problems).toEqual([]);
  });

  it('scales the API Deployment with an autoscaling/v2 HPA on CPU utilisation, on CPU requests', () => {
    const api = apiDeployment();
    const hpas = ofKind<IHorizontalPodAutoscaler>(r.objects, 'HorizontalPodAutoscaler');
    expect(hpas).toHaveLength(1);
    const hpa = hpas[0]!;
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec!.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: nameOf(api) });
    expect(hpa.metadata!.namespace).toBe(api.metadata!.namespace);
    expect(hpa.spec!.metrics).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'Resource',
          resource: expect.objectContaining({ name: 'cpu', target: expect.objectContaining({ type: 'Utilization' }) }),
        }),
      ]),
    );
    expect(hpa.spec!.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec!.maxReplicas).toBeGreaterThanOrEqual(hpa.spec!.minReplicas!);
    // A replica count in the Deployment would reset the HPA's at every apply.
    expect(api.spec!.replicas).toBeUndefined();
    expect(mainContainer(api).resources?.requests?.cpu).toBeDefined();
  });

  it('sets requests and limits on every container', () => {
    const missing = workloads().flatMap((w) =>
      containersOf(w)
        .filter((c) => !c.resources?.requests?.cpu || !c.resources.requests.memory || !c.resources.limits?.memory)
        .map((c) => `${nameOf(w)}/${c.name}`),
    );
    expect(missing).toEqual([]);
  });

  it('covers every Deployment with one PodDisruptionBudget whose selector matches its pods and no others', () => {
    const pdbs = ofKind<IPodDisruptionBudget>(r.objects, 'PodDisruptionBudget');
    const problems: string[] = [];
    for (const d of deployments) {
      const labels = d.spec!.template.metadata?.labels;
      if (!matches(d.spec!.selector.matchLabels, labels)) problems.push(`${nameOf(d)}: its selector does not match its own pods`);
    }
    for (const pdb of pdbs) {
      const covered = deployments.filter((d) => matches(pdb.spec!.selector?.matchLabels, d.spec!.template.metadata?.labels));
      if (covered.length !== 1)
        problems.push(`PDB ${nameOf(pdb)} selects the pods of ${covered.length} Deployments (${covered.map(nameOf).join(', ')})`);
    }
    for (const d of deployments) {
      const budgets = pdbs.filter((pdb) => matches(pdb.spec!.selector?.matchLabels, d.spec!.template.metadata?.labels));
      if (budgets.length !== 1) problems.push(`${nameOf(d)} is covered by ${budgets.length} PodDisruptionBudgets`);
    }
    expect(problems).toEqual([]);
  });

  it('runs one worker Deployment per model, each on a GPU, its files pulled by its own Job', () => {
    const catalog = new Set(BUILT_IN_CATALOG.models.map((m) => m.id));
    const problems: string[] = [];
    const models: string[] = [];
    const pulls = jobs.filter((j) => commandLine(mainContainer(j)).startsWith('node backend/dist/model-files.cli.js pull'));
    for (const d of workerDeployments()) {
      const c = mainContainer(d);
      const env = resolveEnv(c, r.objects).values;
      const model = env.WORKER_MODELS ?? '';
      const gpu = { request: c.resources?.requests?.['nvidia.com/gpu'], limit: c.resources?.limits?.['nvidia.com/gpu'] };
      if (model === 'none') {
        if (gpu.request !== undefined || gpu.limit !== undefined) problems.push(`${nameOf(d)}: a mail-only worker holds a GPU`);
        continue;
      }
      models.push(model);
      if (!/^[^,\s]+$/.test(model)) problems.push(`${nameOf(d)}: WORKER_MODELS is "${model}", not one model`);
      if (!env.MODEL_CATALOG && !catalog.has(model)) problems.push(`${nameOf(d)}: ${model} is not in the built-in catalog`);
      if (d.spec!.template.metadata?.labels?.['globnetwork.io/model'] !== model) problems.push(`${nameOf(d)}: its pods' model label is not ${model}`);
      if (!(Number(gpu.request) >= 1) || gpu.request !== gpu.limit)
        problems.push(`${nameOf(d)}: requests ${gpu.request} and limits ${gpu.limit} nvidia.com/gpu`);
      if (env.INFERENCE_GPU !== 'true') problems.push(`${nameOf(d)}: INFERENCE_GPU is not true`);
      const mount = c.volumeMounts?.find((m) => m.mountPath === env.MODELS_DIR);
      if (!mount?.readOnly) problems.push(`${nameOf(d)}: the models volume is not mounted read-only at MODELS_DIR`);
      const pull = pulls.filter((j) => resolveEnv(mainContainer(j), r.objects).values.WORKER_MODELS === model);
      if (pull.length !== 1) problems.push(`${nameOf(d)}: ${pull.length} pull Jobs for ${model}`);
      for (const j of pull) {
        const jc = mainContainer(j);
        const jenv = resolveEnv(jc, r.objects).values;
        const claim = (volumeName: string | undefined, spec: IPodSpec) =>
          spec.volumes?.find((v) => v.name === volumeName)?.persistentVolumeClaim?.claimName;
        const jmount = jc.volumeMounts?.find((m) => m.mountPath === jenv.MODELS_DIR);
        if (!jmount || jmount.readOnly) problems.push(`${nameOf(j)}: does not mount the models volume writable at MODELS_DIR`);
        if (claim(jmount?.name, podSpec(j)) !== claim(mount?.name, podSpec(d)))
          problems.push(`${nameOf(j)}: writes another volume than ${nameOf(d)} reads`);
        if (commandLine(jc) !== 'node backend/dist/model-files.cli.js pull $(WORKER_MODELS)') problems.push(`${nameOf(j)}: runs ${commandLine(jc)}`);
      }
    }
    expect(models.length).toBeGreaterThanOrEqual(1);
    expect(models.filter((m, i) => models.indexOf(m) !== i)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('mounts the catalog’s models volume in the API at MODELS_DIR, from a ReadWriteMany claim it renders', () => {
    const api = apiDeployment();
    const c = mainContainer(api);
    const env = resolveEnv(c, r.objects).values;
    const mount = c.volumeMounts?.find((m) => m.mountPath === env.MODELS_DIR);
    expect(mount).toBeDefined();
    const claimName = podSpec(api).volumes?.find((v) => v.name === mount!.name)?.persistentVolumeClaim?.claimName;
    const claim = r.objects.find((o) => o.kind === 'PersistentVolumeClaim' && nameOf(o) === claimName) as
      { spec?: { accessModes?: string[] } } | undefined;
    expect(claim?.spec?.accessModes).toContain('ReadWriteMany');
  });

  it('references only claims, Services and ports it renders', () => {
    const problems: string[] = [];
    const claims = new Set(r.objects.filter((o) => o.kind === 'PersistentVolumeClaim').map(nameOf));
    for (const w of workloads()) {
      for (const v of podSpec(w).volumes ?? []) {
        if (v.persistentVolumeClaim && !claims.has(v.persistentVolumeClaim.claimName))
          problems.push(`${nameOf(w)}: claim ${v.persistentVolumeClaim.claimName}`);
      }
      for (const c of containersOf(w)) {
        for (const m of c.volumeMounts ?? [])
          if (!podSpec(w).volumes?.some((v) => v.name === m.name)) problems.push(`${nameOf(w)}/${c.name}: volume ${m.name}`);
      }
    }
    const services = ofKind<IService>(r.objects, 'Service');
    for (const s of services) {
      const pods = deployments.filter((d) => matches(s.spec!.selector, d.spec!.template.metadata?.labels));
      if (pods.length !== 1 || pods[0] !== apiDeployment()) problems.push(`Service ${nameOf(s)} selects ${pods.map(nameOf).join(', ') || 'nothing'}`);
      for (const p of s.spec!.ports ?? []) {
        if (pods[0] && portNumber(mainContainer(pods[0]), p.targetPort) === undefined)
          problems.push(`Service ${nameOf(s)}: target port ${p.targetPort}`);
      }
    }
    for (const ing of ofKind<IIngress>(r.objects, 'Ingress')) {
      // Nodes stream a reply's events in a request body: a proxy that holds bodies until they end would stall them.
      if (ing.metadata?.annotations?.['nginx.ingress.kubernetes.io/proxy-request-buffering'] !== 'off') {
        problems.push(`Ingress ${nameOf(ing)}: request bodies are buffered`);
      }
      for (const rule of ing.spec!.rules ?? []) {
        for (const path of rule.http?.paths ?? []) {
          const backend = path.backend.service!;
          const service = services.find((s) => nameOf(s) === backend.name);
          if (!service?.spec!.ports?.some((p) => p.name === backend.port?.name || p.port === backend.port?.number)) {
            problems.push(`Ingress ${nameOf(ing)}: ${backend.name}:${backend.port?.name ?? backend.port?.number}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

it('checks a real overlay, not an empty folder', () => {
  for (const [, dir] of targets) expect(existsSync(join(dir, 'kustomization.yaml'))).toBe(true);
});
