// The reference server: the lab's sleep endpoint on Go's net/http, a goroutine per request and
// nothing else, so `./lab bench` can give each mode's req/s and CPU per request as a ratio to the
// platform's floor (issue 46), not only between the modes.
//
// It answers what the bench asks of the service for the sleep workload and, given a database, for
// the db workload:
//
//	GET /api/reference/sleep?ms=N  sleeps N ms (0..10000, default 100), {"mode":"reference",...}
//	GET /api/reference/db/slow?ms=N  with -db: holds a pooled connection N ms (pg_sleep, db.go),
//	                               the sleep's twin that waits on a socket
//	GET /q/health/ready            {"status":"UP"}
//	GET /api/info                  what runs (Go's version, GOMAXPROCS)
//	GET /q/metrics                 Prometheus text: the process collector, the process CPU in ns
//	                               and the requests in flight under the service's metric names
//
// Run: reference -addr 127.0.0.1:8095
//
//	PGUSER=loomlab_service PGPASSWORD=... reference -db postgres://127.0.0.1:54329/loomlab -db-pool 20
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// maxMs is the longest sleep a request may ask for, the service's loomlab.sleep.max-ms default.
const maxMs = 10000

func main() {
	addr := flag.String("addr", "127.0.0.1:8095", "address to listen on")
	var db dbSettings
	flag.StringVar(&db.url, "db", "", "PostgreSQL for /api/reference/db/slow (a libpq URL; PGUSER, PGPASSWORD): none, no route")
	flag.IntVar(&db.pool, "db-pool", 20, "connections in the pool (the service's quarkus.datasource.jdbc.max-size default)")
	flag.DurationVar(&db.wait, "db-wait", 2*time.Second, "longest wait for a connection, then 503 (the service's loomlab.execution.max-wait default)")
	flag.DurationVar(&db.statementTimeout, "db-statement-timeout", 30*time.Second, "every session's statement_timeout (the service's loomlab.db.statement-timeout default)")
	flag.Parse()

	var query http.Handler
	if db.url != "" {
		pool, err := openPool(db)
		if err != nil {
			log.Fatal(err)
		}
		query = slowQuery(pool, db.wait)
		log.Printf("db/slow on a pool of %d, a connection waited for at most %s", db.pool, db.wait)
	}
	mux := routes(query)
	server := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("reference server on http://%s (%s, GOMAXPROCS %d)", *addr, runtime.Version(), runtime.GOMAXPROCS(0))
	log.Fatal(server.ListenAndServe())
}

// routes are the server's endpoints, the slow query's where one is given, its metrics in a
// registry of their own.
func routes(query http.Handler) *http.ServeMux {
	registry := prometheus.NewRegistry()
	registry.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "process_cpu_time_ns_total",
		Help: "CPU time of the process (user and system), ns, as the service's Micrometer names it",
	}, cpuNanos))
	inFlight := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "http_server_active_requests",
		Help: "Requests being answered",
	})
	registry.MustRegister(inFlight)

	mux := http.NewServeMux()
	mux.Handle("GET /api/reference/sleep", promhttp.InstrumentHandlerInFlight(inFlight, http.HandlerFunc(sleep)))
	if query != nil {
		mux.Handle("GET /api/reference/db/slow", promhttp.InstrumentHandlerInFlight(inFlight, query))
	}
	mux.HandleFunc("GET /q/health/ready", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "UP"})
	})
	mux.HandleFunc("GET /api/info", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"server":     "Go net/http, a goroutine per request",
			"go":         runtime.Version(),
			"gomaxprocs": runtime.GOMAXPROCS(0),
		})
	})
	mux.Handle("GET /q/metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	return mux
}

// sleep waits ms milliseconds, as the service's sleep endpoint does; a bad ms is a 400.
func sleep(w http.ResponseWriter, r *http.Request) {
	ms, ok := msParam(w, r, 100, maxMs)
	if !ok {
		return
	}
	time.Sleep(time.Duration(ms) * time.Millisecond)
	writeJSON(w, http.StatusOK, map[string]any{"mode": "reference", "thread": "goroutine", "virtual": false, "sleptMs": ms})
}

// msParam is the request's ms (fallback when absent), or false after answering 400 for one
// outside 0..most or not a whole number.
func msParam(w http.ResponseWriter, r *http.Request, fallback, most int64) (int64, bool) {
	raw := r.URL.Query().Get("ms")
	if raw == "" {
		return fallback, true
	}
	parsed, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || parsed < 0 || parsed > most {
		problem(w, http.StatusBadRequest, fmt.Sprintf("ms must be a whole number in 0..%d, got %q", most, raw))
		return 0, false
	}
	return parsed, true
}

// unavailable is the service's answer to a pool it cannot get a connection from in time.
func unavailable(w http.ResponseWriter, detail string) {
	w.Header().Set("Retry-After", "1")
	problem(w, http.StatusServiceUnavailable, detail)
}

func problem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"title": http.StatusText(status), "status": status, "detail": detail})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// cpuNanos is the process' user and system CPU time in ns (getrusage: microseconds, finer than
// /proc's clock ticks, which the process collector's process_cpu_seconds_total counts).
func cpuNanos() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	return float64(usage.Utime.Nano() + usage.Stime.Nano())
}
