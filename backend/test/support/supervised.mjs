// Runs one long-lived child under the supervisor `make serve` uses (scripts/lib.mjs), for its test.
import { onShutdown, start } from '../../../scripts/lib.mjs';

const children = [];
onShutdown(children, async () => {});
start(children, 'child', process.execPath, ['-e', 'console.log(`child up ${process.pid}`); setInterval(() => {}, 1000);'], {}, { restart: true });
