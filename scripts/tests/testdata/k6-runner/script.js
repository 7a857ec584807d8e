/**
 * The fixture of scripts/tests/test_merge.py: one k6 v1.8.1 runner's raw samples (samples.csv.gz) and
 * its own summary (summary.json, the metrics and state of handleSummary's data), recorded with
 *   python3 -m http.server 18999 --bind 127.0.0.1 &
 *   SUMMARY=summary.json K6_CSV_TIME_FORMAT=unix_micro k6 run -q --out csv=samples.csv.gz script.js
 * The merge of this one runner must give k6's summary back, its crossed threshold included.
 */
import http from 'k6/http';
export const options = {
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'],
  scenarios: { main: { executor: 'constant-arrival-rate', rate: 50, timeUnit: '1s', duration: '3s', preAllocatedVUs: 5 } },
  thresholds: {
    'http_req_failed{scenario:main}': ['rate<0.01'],
    'http_reqs{scenario:main}': ['count>0'],
    'http_req_duration{scenario:main}': ['p(99.9)<1'],
    'dropped_iterations': ['count<=0'],
  },
};
export function setup() { http.get('http://127.0.0.1:18999/setup'); }
export default function () { http.get('http://127.0.0.1:18999/'); }
export function handleSummary(d) { return { [__ENV.SUMMARY]: JSON.stringify(d) }; }
