// db.js: GET /api/{MODE}/db/slow?ms=DB_MS, each request holding one pooled connection (seed B).
// More users than connections: the pool, not the threads, sets the pace (bound: pool / query).
//
// Parameters (environment):
//   MODE          worker | virtual | virtual-loop | reactive                 required
//   BASE_URL      service root                                http://127.0.0.1:8080
//   DB_MS         pg_sleep per request                        200
//   CLIENTS       reactive: the virtual mode's variant, the virtual thread awaits the reactive pool   (none)
//   MODEL         closed | open                               closed
//   VUS           closed: concurrent users                    100    (pool: 20)
//   RATE          open: arrivals per second                   80     (bound: 20 / 0.2 s = 100)
//   MAX_VUS       open: most VUs k6 may hold                  400
//   MAX_DROPPED   open: dropped arrivals tolerated            0
//   DURATION      how long                                    20s
//   MAX_ERRORS    tolerated error rate (503 under overload)   0.01
//   MAX_WAIT_MS   if set: no answer, 200 or 503, may take longer (the bounded wait)   (none)
//   SUMMARY_JSON  raw summary file for ./lab bench            (none)
//
// Run:  MODE=virtual VUS=200 k6 run k6/db.js
//       MODE=worker VUS=1000 MAX_ERRORS=0.99 MAX_WAIT_MS=7000 k6 run k6/db.js   (a flood: shed, not queued)
//       MODE=worker MODEL=open RATE=120 MAX_ERRORS=0.5 k6 run k6/db.js   (above the pool's bound)
//       MODE=virtual CLIENTS=reactive VUS=200 k6 run k6/db.js   (virtual threads await the reactive pool)
import { Counter } from 'k6/metrics';
import {
  BASE_URL, mode, clientsParam, intEnv, steadyUsers, byModel, droppedThreshold, requireReady, getJson, labSummary, scenarioThresholds, TREND_STATS,
} from './lib/lab.js';

const MODE = mode('db');
const CLIENTS = clientsParam(MODE);
const DB_MS = intEnv('DB_MS', 200);
const refused = new Counter('loomlab_refused_503');
const served = new Counter('loomlab_served_200');

const scenario = byModel(
  steadyUsers(intEnv('VUS', 100), __ENV.DURATION || '20s'),
  { rate: 80, duration: '20s', maxVUs: 400, latency: DB_MS / 1000 },
);

export const options = {
  scenarios: { db: scenario },
  summaryTrendStats: TREND_STATS,
  thresholds: scenarioThresholds('db', {
    'http_req_failed{scenario:db}': [`rate<${__ENV.MAX_ERRORS || '0.01'}`],
    ...(__ENV.MAX_WAIT_MS ? { 'http_req_duration{scenario:db}': [`max<${intEnv('MAX_WAIT_MS', 0)}`] } : {}),
    ...droppedThreshold(scenario),
  }),
};

export function setup() {
  return requireReady();
}

export default function () {
  const res = getJson(`${BASE_URL}/api/${MODE}/db/slow?ms=${DB_MS}${CLIENTS ? `&${CLIENTS}` : ''}`, `/api/${MODE}/db/slow`);
  if (res.status === 503) refused.add(1);
  if (res.status === 200) served.add(1);
}

export function handleSummary(data) {
  return labSummary(data, 'db');
}
