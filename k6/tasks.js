// tasks.js: GET /api/{MODE}/tasks, a mass fan-out of COUNT blocked tasks (seed A1).
// One user, ITERATIONS requests one after another; the server's own figures (elapsed time,
// peak threads, memory per task) are collected as custom metrics for the report.
//
// Parameters (environment):
//   MODE          worker | virtual | virtual-loop         required
//   BASE_URL      service root                            http://127.0.0.1:8080
//   COUNT         tasks per request                       100     (seed A1)
//   TASK_MS       each task's sleep                       1000    (seed A1)
//   ITERATIONS    requests, one after another             3
//   MAX_DURATION  hard stop                               300s
//   SUMMARY_JSON  raw summary file for ./lab bench        (none)
//
// Run:  MODE=virtual COUNT=100000 k6 run k6/tasks.js
import { check } from 'k6';
import { Trend } from 'k6/metrics';
import {
  BASE_URL, mode, intEnv, closedIterations, requireReady, getJson, labSummary, scenarioThresholds,
  TREND_STATS } from './lib/lab.js';

const MODE = mode('tasks');
const COUNT = intEnv('COUNT', 100);
const TASK_MS = intEnv('TASK_MS', 1000);

const elapsed = new Trend('loomlab_tasks_elapsed_ms');
const peakConcurrent = new Trend('loomlab_tasks_peak_concurrent');
const peakThreads = new Trend('loomlab_tasks_peak_platform_threads');
const rssPerTask = new Trend('loomlab_tasks_rss_bytes_per_task');
const heapPerTask = new Trend('loomlab_tasks_heap_bytes_per_task');
const gcPause = new Trend('loomlab_tasks_measure_gc_ms');

export const options = {
  scenarios: { tasks: closedIterations(1, intEnv('ITERATIONS', 3), __ENV.MAX_DURATION || '300s') },
  summaryTrendStats: TREND_STATS,
  thresholds: scenarioThresholds('tasks', { loomlab_tasks_elapsed_ms: [`min>=${TASK_MS}`] }),
};

export function setup() {
  return requireReady();
}

export default function () {
  const res = getJson(`${BASE_URL}/api/${MODE}/tasks?count=${COUNT}&ms=${TASK_MS}`, `/api/${MODE}/tasks`);
  if (res.status !== 200) return;
  const body = res.json();
  check(body, { 'every task ran': (b) => b.count === COUNT && b.mode === MODE });
  elapsed.add(body.elapsedMs);
  peakConcurrent.add(body.peakConcurrentTasks);
  peakThreads.add(body.peakPlatformThreads);
  if (body.rssBytesPerConcurrentTask >= 0) rssPerTask.add(body.rssBytesPerConcurrentTask);
  if (body.heapBytesPerConcurrentTask >= 0) heapPerTask.add(body.heapBytesPerConcurrentTask);
  gcPause.add(body.measureGcMs);
}

export function handleSummary(data) {
  return labSummary(data, 'tasks');
}
