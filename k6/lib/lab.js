// Shared by every loom-lab k6 script: target, mode, load shapes, checks, and the summary.
//
// Environment (all scripts):
//   BASE_URL       service root                      default http://127.0.0.1:8080
//   MODE           worker | virtual | virtual-loop | reactive       required; the script's modes are in lib/modes.json
//   SUMMARY_JSON   where to write k6's raw summary    default: not written
//   RUN_LABEL      free text printed in the summary  default: script and mode
//   THINK_MS       pause between iterations (ms)     default 0 (the seeds used none)
//   READY_WAIT_S   setup() waits this long for READY_PATH before giving up   default 30
//   READY_PATH     what answers 200 once the service is ready   default /q/health/ready
//                  (the bench's minimal application has no health endpoint: its sleep's)
//   SUMMARY_LOG    1: also print the raw summary to stdout between marker lines   default: not
//                  (a Kubernetes Job's result, read back from its log)
// Nothing here imports from the network: clusters often have no egress.

import http from 'k6/http';
import exec from 'k6/execution';
import { check, sleep } from 'k6';
import { Counter } from 'k6/metrics';

export const BASE_URL = (__ENV.BASE_URL || 'http://127.0.0.1:8080').replace(/\/$/, '');
const READY_PATH = __ENV.READY_PATH || '/q/health/ready';
/**
 * Which modes each workload runs in: modes.json beside this file, the one statement of it that the
 * scripts, run.sh and the bench read (the service states the same; ModeMatrixTest compares them).
 */
export const MODE_MATRIX = JSON.parse(open(import.meta.resolve('./modes.json')));

/**
 * The execution model under test, from MODE; anything but the modes MODE_MATRIX gives `key` (a
 * workload, or 'copy', 'ingest-grpc') and the `others` the script also serves (sleep.js: the
 * reference server's 'reference') stops the script before any load.
 */
export function mode(key, others = []) {
  if (!MODE_MATRIX[key]) throw new Error(`no modes for '${key}' in modes.json`);
  const accepted = [...MODE_MATRIX[key], ...others];
  const m = __ENV.MODE;
  if (!accepted.includes(m)) {
    throw new Error(`MODE must be one of ${accepted.join(', ')} for ${key}, got '${m}'`);
  }
  return m;
}

/**
 * The clients' query parameter from CLIENTS: '' (the mode's own) or 'clients=reactive', the
 * virtual mode's variant in which the virtual thread awaits the reactive clients (db, product).
 */
export function clientsParam(m) {
  const c = __ENV.CLIENTS || '';
  if (c === '' || c === 'blocking') {
    return '';
  }
  if (c !== 'reactive' || m !== 'virtual') {
    throw new Error(`CLIENTS=reactive is a variant of MODE=virtual only, got CLIENTS='${c}' with MODE='${m}'`);
  }
  return 'clients=reactive';
}

export function intEnv(name, fallback) {
  const raw = __ENV[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got '${raw}'`);
  return n;
}

/** Trend statistics every report uses (k6 does not compute a standard deviation: see sq below). */
export const TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'];

// Sum of squared request durations: with the mean and the count it gives the standard deviation
// the seeds report (sqrt(E[x^2] - E[x]^2)), without exporting every sample.
const durationSquares = new Counter('loomlab_req_duration_sq');

/**
 * Closed model, as the seeds ran it: `vus` users that each send `iterations` requests back to
 * back, all started at once. maxDuration bounds the run whatever happens.
 */
export function closedIterations(vus, iterations, maxDuration) {
  return {
    executor: 'per-vu-iterations',
    vus,
    iterations,
    maxDuration,
  };
}

/** Closed model: `vus` users sending requests back to back for `duration` (seeds B and E). */
export function steadyUsers(vus, duration) {
  return { executor: 'constant-vus', vus, duration, gracefulStop: '10s' };
}

/** Closed model ramped through stages (seed C). */
export function closedStages(stages) {
  return { executor: 'ramping-vus', startVUs: 0, stages, gracefulRampDown: '5s' };
}

/**
 * Open model: a fixed arrival rate whatever the latency, so queueing shows up as latency or as
 * dropped_iterations instead of being hidden (coordinated omission). k6 drops arrivals while it
 * initialises VUs mid-run, so enough are allocated up front for four times the expected
 * concurrency (rate x latency): a pause of the service (GC, JIT, a cold pod) that stretches
 * latencies up to 4x still finds a free VU for every arrival (with twice, an in-cluster CI run
 * dropped 22 of 1,600 arrivals at 0.8x the bound when its max latency reached 2.8x). More, up to
 * maxVUs, only when the service stays slow.
 */
export function openRate(rate, duration, maxVUs, expectedLatencySeconds = 0.25) {
  return {
    executor: 'constant-arrival-rate',
    rate,
    timeUnit: '1s',
    duration,
    preAllocatedVUs: Math.min(maxVUs, Math.max(10, Math.ceil(rate * expectedLatencySeconds * 4))),
    maxVUs,
  };
}

/**
 * The load model MODEL asks for: `closed` (default) is the script's own closed shape; `open` is
 * openRate(RATE, DURATION, MAX_VUS), with the script's defaults where a variable is unset
 * (openDefaults.durationVar renames DURATION where a script already uses it for something else;
 * openDefaults.latency is the expected seconds per request, which sizes the VUs k6 prepares).
 */
export function byModel(closed, openDefaults) {
  const model = __ENV.MODEL || 'closed';
  if (model === 'closed') return closed;
  if (model !== 'open') throw new Error(`MODEL must be closed or open, got '${model}'`);
  return openRate(
    intEnv('RATE', openDefaults.rate),
    __ENV[openDefaults.durationVar || 'DURATION'] || openDefaults.duration,
    intEnv('MAX_VUS', openDefaults.maxVUs),
    openDefaults.latency,
  );
}

/**
 * Dropped iterations are a failure signal of an open run: the arrivals the service could not
 * take. The threshold makes k6 exit non-zero when more than MAX_DROPPED (default 0) were dropped;
 * the bench reads the count either way.
 */
export function droppedThreshold(scenario) {
  return scenario.executor === 'constant-arrival-rate'
    ? { dropped_iterations: [`count<=${intEnv('MAX_DROPPED', 0)}`] }
    : {};
}

/**
 * Waits up to READY_WAIT_S (default 30 s, inside k6's 60 s setup timeout) for the service to be
 * ready, then fails the run before any load if it is not: a Job started beside its target
 * otherwise fails its first requests while the target starts.
 */
export function requireReady() {
  const started = Date.now();
  const deadline = started + intEnv('READY_WAIT_S', 30) * 1000;
  let probes = 1;
  let res = http.get(`${BASE_URL}${READY_PATH}`, { tags: { name: 'setup' }, timeout: '5s' });
  while (res.status !== 200 && Date.now() < deadline) {
    sleep(0.5);
    probes += 1;
    res = http.get(`${BASE_URL}${READY_PATH}`, { tags: { name: 'setup' }, timeout: '5s' });
  }
  if (res.status !== 200) {
    exec.test.abort(`service not ready at ${BASE_URL}${READY_PATH} (status ${res.status})`);
  }
  const info = http.get(`${BASE_URL}/api/info`, { tags: { name: 'setup' } });
  // How long the wait took and how many probes it needed: the report rates the load without it.
  const setup = { ms: Date.now() - started, probes };
  return { ...(info.status === 200 ? info.json() : {}), setup };
}

/**
 * GET with the lab's bookkeeping: checks (status 200, JSON, plus the script's own) and the squared
 * duration. Checks stay cheap (no JSON parsing): k6 shares the machine with the service.
 */
export function getJson(url, name, extraChecks = {}) {
  const res = track(http.get(url, { tags: { name } }));
  check(res, {
    'status is 200': (r) => r.status === 200,
    'content is JSON': (r) => (r.headers['Content-Type'] || '').startsWith('application/json'),
    ...extraChecks,
  });
  return res;
}

/** Books a response's duration for the standard deviation; returns the response. */
export function track(res) {
  trackMs(res.timings.duration);
  return res;
}

/** Books a duration (ms) for the standard deviation: an HTTP response's, or a gRPC chunk's. */
export function trackMs(ms) {
  durationSquares.add(ms * ms);
}

// A gRPC stream's own figures, read where an HTTP script's are (k6/ingest-grpc.js): one "request"
// is a chunk, from its write to its acknowledgement.
export const STREAM_METRICS = {
  http_req_duration: 'loomlab_chunk_duration',
  http_reqs: 'loomlab_chunks',
  http_req_failed: 'loomlab_chunk_failed',
};

/**
 * Thresholds, applied to the scenario's own requests only (setup()'s readiness probe is not
 * load). Declaring them also makes k6 keep these sub-metrics in the summary, where the report
 * reads them.
 */
export function scenarioThresholds(scenario, extra = {}) {
  return {
    [`http_req_failed{scenario:${scenario}}`]: ['rate<0.01'],
    [`http_reqs{scenario:${scenario}}`]: ['count>0'],
    [`http_req_duration{scenario:${scenario}}`]: [],
    ...extra,
  };
}

/**
 * The scenario's sub-metric when present, else the whole metric; for a chunk stream, the stream's
 * counterpart of an HTTP metric (STREAM_METRICS).
 */
export function scenarioMetric(data, name, scenario) {
  const of = (n) => data.metrics[`${n}{scenario:${scenario}}`] || data.metrics[n];
  return (STREAM_METRICS[name] && of(STREAM_METRICS[name])) || of(name);
}

export function think() {
  const ms = intEnv('THINK_MS', 0);
  if (ms > 0) sleep(ms / 1000);
}

function fmt(v, digits = 1) {
  return v === undefined || v === null || Number.isNaN(v) ? '-' : Number(v).toFixed(digits);
}

/** Standard deviation of http_req_duration from the summary and the squared-duration counter. */
export function stdDev(data, scenario) {
  const d = scenarioMetric(data, 'http_req_duration', scenario);
  const sq = data.metrics.loomlab_req_duration_sq;
  if (!d || !sq || !d.values.count) return NaN;
  const mean = d.values.avg;
  const variance = sq.values.count / d.values.count - mean * mean;
  return Math.sqrt(Math.max(0, variance));
}

// Around the raw summary in a log (SUMMARY_LOG=1); scripts/loomlab/incluster looks for these.
const SUMMARY_BEGIN = '----- loom-lab k6 summary -----';
const SUMMARY_END = '----- end of loom-lab k6 summary -----';

/**
 * End of test: k6's raw summary to SUMMARY_JSON (read by `./lab bench`), and a short table to
 * stdout, the same figures in a terminal and in a Kubernetes Job's log.
 */
export function labSummary(data, scenario) {
  const label = __ENV.RUN_LABEL || `${scenario} ${__ENV.MODE || ''}`;
  const m = data.metrics;
  const pick = (name) => scenarioMetric(data, name, scenario);
  const d = pick('http_req_duration') ? pick('http_req_duration').values : {};
  const reqs = pick('http_reqs') ? pick('http_reqs').values : { count: 0, rate: 0 };
  const failed = pick('http_req_failed') ? pick('http_req_failed').values.rate : 0;
  const dropped = m.dropped_iterations ? m.dropped_iterations.values.count : 0;
  const lines = [
    '',
    `loom-lab | ${label} | ${BASE_URL}`,
    `  requests ${reqs.count}  throughput ${fmt(reqs.rate)} req/s  errors ${fmt(failed * 100, 2)} %  dropped ${dropped}`,
    `  latency ms: mean ${fmt(d.avg)}  sd ${fmt(stdDev(data, scenario))}  min ${fmt(d.min)}  p50 ${fmt(d.med)}  ` +
      `p90 ${fmt(d['p(90)'])}  p95 ${fmt(d['p(95)'])}  p99 ${fmt(d['p(99)'])}  max ${fmt(d.max)}`,
    '',
  ];
  if (__ENV.SUMMARY_LOG === '1') {
    lines.push(SUMMARY_BEGIN, JSON.stringify(data), SUMMARY_END, '');
  }
  const out = { stdout: lines.join('\n') };
  if (__ENV.SUMMARY_JSON) out[__ENV.SUMMARY_JSON] = JSON.stringify(data, null, 1);
  return out;
}
