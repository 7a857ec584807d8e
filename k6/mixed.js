// mixed.js: GET /api/{MODE}/mixed, CPU_MS of CPU work then WAIT_MS of waiting per request: where
// virtual threads stop winning (issue 32). With LONG_SHARE > 0, that share of requests is long CPU
// work alone (LONG_CPU_MS, no wait) and the rest are short ones, whose own latency is
// loomlab_short_duration: what a long request on the same carriers or loop does to the others.
//
// Parameters (environment):
//   MODE          worker | virtual | virtual-loop | reactive           required
//   OFFLOAD       reactive only: true runs the CPU work on the worker pool   false
//   BASE_URL      service root                          http://127.0.0.1:8080
//   CPU_MS        CPU per (short) request               5
//   WAIT_MS       wait per (short) request              100
//   LONG_SHARE    share of long requests, 0..1          0
//   LONG_CPU_MS   CPU per long request                  50
//   MODEL         closed | open                         closed
//   VUS           closed: users started at once         500
//   ITERATIONS    closed: requests per user             10
//   RATE          open: arrivals per second             300
//   DURATION      open: how long                        20s
//   MAX_VUS       open: most VUs k6 may hold            2000
//   MAX_DROPPED   open: dropped arrivals tolerated      0
//   MAX_DURATION  closed: hard stop                     180s
//   SUMMARY_JSON  raw summary file for ./lab bench      (none)
//
// Run:  MODE=virtual CPU_MS=10 k6 run k6/mixed.js
//       MODE=reactive OFFLOAD=true MODEL=open RATE=200 k6 run k6/mixed.js
//       MODE=virtual LONG_SHARE=0.05 CPU_MS=0 k6 run k6/mixed.js
import { Trend } from 'k6/metrics';
import {
  BASE_URL, mode, intEnv, closedIterations, byModel, droppedThreshold, requireReady, getJson, think,
  labSummary, scenarioThresholds, TREND_STATS,
} from './lib/lab.js';

const MODE = mode('mixed');
const OFFLOAD = (__ENV.OFFLOAD || 'false') === 'true';
if (OFFLOAD && MODE !== 'reactive') {
  throw new Error(`OFFLOAD=true moves the reactive mode's work off the loop; MODE is '${MODE}'`);
}
const CPU_MS = intEnv('CPU_MS', 5);
const WAIT_MS = intEnv('WAIT_MS', 100);
const LONG_SHARE = parseFloat(__ENV.LONG_SHARE || '0');
const LONG_CPU_MS = intEnv('LONG_CPU_MS', 50);
const OFFLOAD_PARAM = OFFLOAD ? '&offload=true' : '';

const shortDuration = new Trend('loomlab_short_duration', true);

// The VUs k6 prepares for an open run follow the expected latency: with long requests in the mix,
// a short one may wait behind them (on a carrier, or a blocked event loop), so prepare for both.
const EXPECTED_MS = CPU_MS + WAIT_MS + (LONG_SHARE > 0 ? LONG_CPU_MS : 0);

const scenario = byModel(
  closedIterations(intEnv('VUS', 500), intEnv('ITERATIONS', 10), __ENV.MAX_DURATION || '180s'),
  { rate: 300, duration: '20s', maxVUs: 2000, latency: EXPECTED_MS / 1000 },
);

export const options = {
  scenarios: { mixed: scenario },
  summaryTrendStats: TREND_STATS,
  thresholds: scenarioThresholds('mixed', {
    'loomlab_short_duration{scenario:mixed}': [],
    ...droppedThreshold(scenario),
  }),
};

export function setup() {
  return requireReady();
}

export default function () {
  // A fixed share, drawn per request: the long ones land anywhere in the run, as in production.
  const long = LONG_SHARE > 0 && Math.random() < LONG_SHARE;
  const cpu = long ? LONG_CPU_MS : CPU_MS;
  const wait = long ? 0 : WAIT_MS;
  const kind = long ? 'long' : 'short';
  const res = getJson(
    `${BASE_URL}/api/${MODE}/mixed?cpu-ms=${cpu}&wait-ms=${wait}${OFFLOAD_PARAM}`,
    `/api/${MODE}/mixed ${kind}`,
    // A substring, not a JSON parse: the check must not cost k6 the CPU the service needs.
    { 'ran in the requested mode': (r) => r.body.includes(`"mode":"${MODE}"`) },
  );
  if (!long && res.status === 200) {
    shortDuration.add(res.timings.duration);
  }
  think();
}

export function handleSummary(data) {
  return labSummary(data, 'mixed');
}
