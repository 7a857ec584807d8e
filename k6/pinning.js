// pinning.js: GET /api/{MODE}/pinning?lock=LOCK&ms=PIN_MS, blocking while holding a lock (seed E).
// A pinned virtual thread holds its carrier: with LOCK=native the virtual mode can serve only
// as many requests at once as there are carriers (CPU cores).
//
// Parameters (environment):
//   MODE          worker | virtual                            required
//   LOCK          synchronized | reentrant | native           synchronized
//   BASE_URL      service root                                http://127.0.0.1:8080
//   PIN_MS        blocking time per request                   50
//   VUS           concurrent users                            50
//   DURATION      how long                                    10s
//   SUMMARY_JSON  raw summary file for ./lab bench            (none)
//
// Run:  MODE=virtual LOCK=native k6 run k6/pinning.js
import {
  BASE_URL, mode, intEnv, requireReady, getJson, labSummary, scenarioThresholds, TREND_STATS,
} from './lib/lab.js';

const MODE = mode();
const LOCK = __ENV.LOCK || 'synchronized';
const PIN_MS = intEnv('PIN_MS', 50);

export const options = {
  scenarios: {
    pinning: { executor: 'constant-vus', vus: intEnv('VUS', 50), duration: __ENV.DURATION || '10s', gracefulStop: '10s' },
  },
  summaryTrendStats: TREND_STATS,
  thresholds: scenarioThresholds('pinning'),
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
