// sleep.js: GET /api/{MODE}/sleep, the request thread blocks SLEEP_MS (seeds A2/A3). MODE=reference
// loads the reference server instead (scripts/reference: Go's net/http, the same endpoint).
//
// Parameters (environment):
//   MODE          worker | virtual | virtual-loop | reactive | reference   required (reference: scripts/reference)
//   BASE_URL      service root                          http://127.0.0.1:8080
//   SLEEP_MS      server-side sleep per request         100
//   MODEL         closed | open                         closed
//   VUS           closed: users started at once         500  (seed A3)
//   ITERATIONS    closed: requests per user             10   (seed A3: 5,000 requests)
//   RATE          open: arrivals per second             1000
//   DURATION      open: how long                        20s
//   MAX_VUS       open: most VUs k6 may hold            2000
//   MAX_DROPPED   open: dropped arrivals tolerated      0
//   MAX_DURATION  closed: hard stop                     120s
//   SUMMARY_JSON  raw summary file for ./lab bench      (none)
//
// Run:  MODE=virtual k6 run k6/sleep.js
//       MODE=worker MODEL=open RATE=600 DURATION=20s k6 run k6/sleep.js
import {
  BASE_URL, mode, intEnv, closedIterations, byModel, droppedThreshold, requireReady, getJson, think,
  labSummary, scenarioThresholds, TREND_STATS,
} from './lib/lab.js';

const MODE = mode('sleep', ['reference']);
const SLEEP_MS = intEnv('SLEEP_MS', 100);

const scenario = byModel(
  closedIterations(intEnv('VUS', 500), intEnv('ITERATIONS', 10), __ENV.MAX_DURATION || '120s'),
  { rate: 1000, duration: '20s', maxVUs: 2000, latency: SLEEP_MS / 1000 },
);

export const options = {
  scenarios: { sleep: scenario },
  summaryTrendStats: TREND_STATS,
  thresholds: scenarioThresholds('sleep', {
    // Never faster than the sleep itself: a guard against measuring the wrong endpoint.
    'http_req_duration{scenario:sleep}': [`min>=${SLEEP_MS}`],
    ...droppedThreshold(scenario),
  }),
};

export function setup() {
  return requireReady();
}

export default function () {
  getJson(`${BASE_URL}/api/${MODE}/sleep?ms=${SLEEP_MS}`, `/api/${MODE}/sleep`, {
    // A substring, not a JSON parse: the check must not cost k6 the CPU the service needs.
    'ran in the requested mode': (r) => r.body.includes(`"mode":"${MODE}"`),
  });
  think();
}

export function handleSummary(data) {
  return labSummary(data, 'sleep');
}
