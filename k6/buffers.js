// buffers.js: GET /api/{MODE}/buffers, a request that encodes into a 64 KiB scratch buffer from a
// per-thread cache (CACHE=thread, a ThreadLocal) or a shared pool (CACHE=pool), then waits WAIT_MS:
// what a per-thread cache costs when every request has a new (virtual) thread.
//
// Parameters (environment):
//   MODE          worker | virtual | virtual-loop | reactive           required
//   CACHE         thread | pool                         thread
//   BASE_URL      service root                          http://127.0.0.1:8080
//   WAIT_MS       wait per request                      100
//   MODEL         closed | open                         closed
//   RATE          open: arrivals per second             800
//   DURATION      open: how long                        20s
//   MAX_VUS       open: most VUs k6 may hold            1000
//   MAX_DROPPED   open: dropped arrivals tolerated      0
//   VUS           closed: users started at once         200
//   ITERATIONS    closed: requests per user             10
//   MAX_DURATION  closed: hard stop                     120s
//   SUMMARY_JSON  raw summary file for ./lab bench      (none)
//
// Run:  MODE=virtual CACHE=thread k6 run k6/buffers.js
//       MODE=virtual CACHE=pool MODEL=open RATE=1500 k6 run k6/buffers.js
import {
  BASE_URL, mode, intEnv, closedIterations, byModel, droppedThreshold, requireReady, getJson, think,
  labSummary, scenarioThresholds, TREND_STATS,
} from './lib/lab.js';

const MODE = mode('buffers');
const CACHE = __ENV.CACHE || 'thread';
const WAIT_MS = intEnv('WAIT_MS', 100);

const scenario = byModel(
  closedIterations(intEnv('VUS', 200), intEnv('ITERATIONS', 10), __ENV.MAX_DURATION || '120s'),
  { rate: 800, duration: '20s', maxVUs: 1000, latency: WAIT_MS / 1000 },
);

export const options = {
  scenarios: { buffers: scenario },
  summaryTrendStats: TREND_STATS,
  thresholds: scenarioThresholds('buffers', droppedThreshold(scenario)),
};

export function setup() {
  return requireReady();
}

export default function () {
  getJson(
    `${BASE_URL}/api/${MODE}/buffers?cache=${CACHE}&seed=${__ITER}&wait-ms=${WAIT_MS}`,
    `/api/${MODE}/buffers`,
    // A substring, not a JSON parse: the check must not cost k6 the CPU the service needs.
    { 'used the requested cache': (r) => r.body.includes(`"cache":"${CACHE}"`) },
  );
  think();
}

export function handleSummary(data) {
  return labSummary(data, 'buffers');
}
