/**
 * A provider's node: `npm run node -- --api <url>` (pairing by a code confirmed in the web app) or with
 * `--join-token <token>` (see options.ts). Talks to the API over HTTP only; needs no database, no Redis and none of
 * the API's settings.
 */
import { join } from 'node:path';
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
import { createLog, withLogFile } from './logging';
import { desktopApp } from './desktop/main-desktop';
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
  const stdoutLog = createLog(options.logFormat);
  const log = options.command === 'desktop' ? withLogFile(stdoutLog, join(options.dataDir, 'desktop.log')) : stdoutLog;
  const gpu = options.gpu === 'off' ? null : await detectGpu();
  const host = { ...hostFacts(gpu), ...(options.memoryBytes ? { memory_bytes: options.memoryBytes } : {}) };
  log(
    `${host.hostname}: ${host.cpu_cores} cores, ${(host.memory_bytes / 1024 ** 3).toFixed(1)} GB memory, ${gpu ? `GPU ${gpu.name}` : 'no GPU'}; ` +
      `models in ${options.modelsDir}`,
  );
  const store = new CredentialStore(options.dataDir);
  const api = options.api ?? (await store.read())?.api;
  const createAgent = (o: { apiUrl: () => string; waitForApi?: (signal: AbortSignal) => Promise<string> }): Agent =>
    new Agent({
      options,
      store,
      log,
      battery: defaultBatterySource(),
      createEngine: (e) => LlamaEngine.create(e),
      host,
      gpuBackend: gpu?.backend ?? null,
      library: new ModelLibrary({ dir: options.modelsDir, apiUrl: o.apiUrl, log, progressBar: process.stdout.isTTY }),
      poolFiles: modelFiles,
      pool: (onChange, threads, models, nodeId) =>
        new PoolMember({ log, listen: options.poolAddress, bin: () => llamaBin(options.llamaBin, log), threads, nodeId, models, onChange }),
      cpuLoad: () => cpuLoad(host.cpu_cores),
      openBrowser,
      waitForApi: o.waitForApi,
    });

  let stop: () => void;
  let running: Promise<number>;
  if (options.command === 'desktop') {
    const app = desktopApp(options, log, createAgent);
    stop = () => app.quit();
    running = app.run();
  } else {
    const agent = createAgent({ apiUrl: () => api ?? 'http://localhost' });
    stop = () => agent.stop();
    running = agent.run();
  }
  let firstSignal = 0;
  const onSignal = (): void => {
    // Ctrl-C reaches npm and this process alike, and npm forwards it: copies within a second are one Ctrl-C.
    // A later second one leaves at once; the network takes a held job back when its lock expires.
    if (firstSignal && Date.now() - firstSignal > 1000) process.exit(130);
    firstSignal ||= Date.now();
    stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return running;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof AgentError ? err.message : err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
