// Runs a k6 script's iterations without k6: node --experimental-loader ./loader.mjs driver.mjs
// SCRIPT ITERATIONS, the script's environment in TWIN_ENV (JSON); prints what it sent as JSON
// (requests, gRPC streams and messages, checks). Its setup() is not run: it waits for a service.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import exec from 'k6/execution';
import { twin } from 'k6';

const [script, iterations] = process.argv.slice(2);
globalThis.__ENV = JSON.parse(process.env.TWIN_ENV ?? '{}');
globalThis.__VU = 1;
globalThis.__ITER = 0;
globalThis.open = (path) => readFileSync(path.startsWith('file:') ? new URL(path) : path, 'utf8');
const loaded = await import(pathToFileURL(script).href);
for (let i = 0; i < Number(iterations); i++) {
  globalThis.__ITER = i;
  exec.vu.iterationInScenario = i;
  exec.scenario.iterationInTest = i;
  loaded.default();
}
// The answers a stream's stand-in queued, and the writes they led to, before what was sent is told.
await new Promise((done) => setImmediate(done));
process.stdout.write(JSON.stringify(twin));
