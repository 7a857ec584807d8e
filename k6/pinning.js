// pinning.js: GET /api/{MODE}/pinning?lock=LOCK&ms=PIN_MS, blocking while holding a lock (seed E).
// A pinned virtual thread holds its carrier: with LOCK=native the virtual mode can serve only
// as many requests at once as there are carriers (CPU cores).
//
// Parameters (environment):
//   MODE          worker | virtual | virtual-loop             required
//   LOCK          synchronized | reentrant | native           synchronized
//   BASE_URL      service root                                http://127.0.0.1:8080
//   PIN_MS        blocking time per request                   50
//   MODEL         closed | open                               closed
//   VUS           closed: concurrent users                    50
//   RATE          open: arrivals per second                   32     (native, virtual: 2 carriers / 50 ms = 40)
//   MAX_VUS       open: most VUs k6 may hold                  200
//   MAX_DROPPED   open: dropped arrivals tolerated            0
//   DURATION      how long                                    10s
//   SUMMARY_JSON  raw summary file for ./lab bench            (none)
//
// Run:  MODE=virtual LOCK=native k6 run k6/pinning.js
//       MODE=virtual LOCK=native MODEL=open RATE=48 k6 run k6/pinning.js
import {
  BASE_URL, mode, intEnv, steadyUsers, byModel, droppedThreshold, requireReady, getJson, labSummary, scenarioThresholds, TREND_STATS } from './lib/lab.js';

const MODE = mode('pinning');
const LOCK = __ENV.LOCK || 'synchronized';
const PIN_MS = intEnv('PIN_MS', 50);

const scenario = byModel(
  steadyUsers(intEnv('VUS', 50), __ENV.DURATION || '10s'),
  { rate: 32, duration: '10s', maxVUs: 200, latency: PIN_MS / 1000 },
);

export const options = {
  scenarios: { pinning: scenario },
  summaryTrendStats: TREND_STATS,
  thresholds: scenarioThresholds('pinning', droppedThreshold(scenario)),
};

export function setup() {
  return requireReady();
}

export default function () {
  getJson(`${BASE_URL}/api/${MODE}/pinning?lock=${LOCK}&ms=${PIN_MS}`, `/api/${MODE}/pinning`, {
    'held the lock': (r) => r.body.includes(`"lock":"${LOCK}"`),
  });
}

export function handleSummary(data) {
  return labSummary(data, 'pinning');
}
