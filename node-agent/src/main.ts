/**
 * A provider's node: `npm run node -- --api <url>` (pairing by a code confirmed in the web app) or with
 * `--join-token <token>` (see options.ts). Talks to the API over HTTP only; needs no database, no Redis and none of
 * the API's settings.
 */
import { Agent } from './agent';
import { AgentError } from './session';
import { defaultBatterySource } from './battery';
import { openBrowser } from './browser';
import { CredentialStore } from './credential-store';
import { llamaBin } from './llama-process';
import { cpuLoad, detectGpu, hostFacts, modelFiles } from './machine';
import { ModelLibrary } from './model-library';
import { OptionsError, parseOptions, USAGE } from './options';
import { PoolMember } from './pool-member';
import { createLog } from './logging';
import { LlamaEngine } from '@glob/engine/llama-engine';

async function main(): Promise<number> {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof OptionsError)) throw err;
    console.error(`${err.message}\n\n${USAGE}`);
    return 1;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  const log = createLog(options.logFormat);
  const gpu = options.gpu === 'off' ? null : await detectGpu();
  const host = { ...hostFacts(gpu), ...(options.memoryBytes ? { memory_bytes: options.memoryBytes } : {}) };
  log(
    `${host.hostname}: ${host.cpu_cores} cores, ${(host.memory_bytes / 1024 ** 3).toFixed(1)} GB memory, ${gpu ? `GPU ${gpu.name}` : 'no GPU'}; ` +
      `models in ${options.modelsDir}`,
  );
  const store = new CredentialStore(options.dataDir);
  const api = options.api ?? (await store.read())?.api;
  const agent = new Agent({
    options,
    store,
    log,
    battery: defaultBatterySource(),
    createEngine: (o) => LlamaEngine.create(o),
    host,
    gpuBackend: gpu?.backend ?? null,
    library: new ModelLibrary({ dir: options.modelsDir, apiUrl: api ?? 'http://localhost', log, progressBar: process.stdout.isTTY }),
    poolFiles: modelFiles,
    pool: (onChange, threads, models, nodeId) =>
      new PoolMember({ log, listen: options.poolAddress, bin: () => llamaBin(options.llamaBin, log), threads, nodeId, models, onChange }),
    cpuLoad: () => cpuLoad(host.cpu_cores),
    openBrowser,
  });
  let firstSignal = 0;
  const onSignal = (): void => {
    // Ctrl-C reaches npm and this process alike, and npm forwards it: copies within a second are one Ctrl-C.
    // A later second one leaves at once; the network takes a held job back when its lock expires.
    if (firstSignal && Date.now() - firstSignal > 1000) process.exit(130);
    firstSignal ||= Date.now();
    agent.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return agent.run();
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof AgentError ? err.message : err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
