// The reference server: the lab's sleep endpoint on Go's net/http, a goroutine per request and
// nothing else, so `./lab bench` can give each mode's req/s and CPU per request as a ratio to the
// platform's floor (issue 46), not only between the modes.
//
// It answers what the bench asks of the service for the sleep workload:
//
//	GET /api/reference/sleep?ms=N  sleeps N ms (0..10000, default 100), {"mode":"reference",...}
//	GET /q/health/ready            {"status":"UP"}
//	GET /api/info                  what runs (Go's version, GOMAXPROCS)
//	GET /q/metrics                 Prometheus text: the process collector, the process CPU in ns
//	                               and the requests in flight under the service's metric names
//
// Run: reference -addr 127.0.0.1:8095
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
	flag.Parse()

	mux := routes()
	server := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("reference server on http://%s (%s, GOMAXPROCS %d)", *addr, runtime.Version(), runtime.GOMAXPROCS(0))
	log.Fatal(server.ListenAndServe())
}

// routes are the server's endpoints, its metrics in a registry of their own.
func routes() *http.ServeMux {
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
	ms := int64(100)
	if raw := r.URL.Query().Get("ms"); raw != "" {
		parsed, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || parsed < 0 || parsed > maxMs {
			problem(w, fmt.Sprintf("ms must be a whole number in 0..%d, got %q", maxMs, raw))
			return
		}
		ms = parsed
	}
	time.Sleep(time.Duration(ms) * time.Millisecond)
	writeJSON(w, http.StatusOK, map[string]any{"mode": "reference", "thread": "goroutine", "virtual": false, "sleptMs": ms})
}

func problem(w http.ResponseWriter, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]any{"title": "Bad Request", "status": http.StatusBadRequest, "detail": detail})
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
