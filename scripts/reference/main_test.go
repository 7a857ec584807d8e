package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func get(t *testing.T, path string) *httptest.ResponseRecorder {
	t.Helper()
	recorder := httptest.NewRecorder()
	routes(nil).ServeHTTP(recorder, httptest.NewRequest(http.MethodGet, path, nil))
	return recorder
}

func TestSleepAnswersInTheReferenceMode(t *testing.T) {
	got := get(t, "/api/reference/sleep?ms=0")
	if got.Code != http.StatusOK || !strings.Contains(got.Body.String(), `"mode":"reference"`) {
		t.Fatalf("sleep?ms=0: %d %s", got.Code, got.Body)
	}
}

func TestABadSleepIsAProblemAndNoSleep(t *testing.T) {
	for _, ms := range []string{"-1", "10001", "x", "1e3"} {
		got := get(t, "/api/reference/sleep?ms="+ms)
		if got.Code != http.StatusBadRequest || got.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("ms=%s: %d %s", ms, got.Code, got.Header().Get("Content-Type"))
		}
	}
}

func TestMetricsUnderTheServicesNames(t *testing.T) {
	body := get(t, "/q/metrics").Body.String()
	for _, name := range []string{"process_cpu_time_ns_total ", "process_resident_memory_bytes ", "http_server_active_requests "} {
		if !strings.Contains(body, "\n"+name) {
			t.Errorf("/q/metrics has no %s", name)
		}
	}
}

func TestABadQueryIsAProblemAndTouchesNoPool(t *testing.T) {
	handler := slowQuery(nil, time.Second) // a nil pool: any use of it would panic
	for _, ms := range []string{"-1", "10001", "x"} {
		recorder := httptest.NewRecorder()
		handler.ServeHTTP(recorder, httptest.NewRequest(http.MethodGet, "/api/reference/db/slow?ms="+ms, nil))
		if recorder.Code != http.StatusBadRequest || recorder.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("ms=%s: %d %s", ms, recorder.Code, recorder.Header().Get("Content-Type"))
		}
	}
}

func TestNoConnectionIsA503WithinTheWait(t *testing.T) {
	// Nothing listens on port 1 of loopback: every connection is refused.
	pool, err := openPool(dbSettings{url: "postgres://nobody@127.0.0.1:1/none?connect_timeout=5", pool: 2, wait: 3 * time.Second, statementTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	recorder := httptest.NewRecorder()
	slowQuery(pool, 3*time.Second).ServeHTTP(recorder, httptest.NewRequest(http.MethodGet, "/api/reference/db/slow?ms=10", nil))
	if recorder.Code != http.StatusServiceUnavailable || recorder.Header().Get("Retry-After") == "" {
		t.Fatalf("refused connection: %d %s", recorder.Code, recorder.Body)
	}
}

func TestAPoolOfNoConnectionsIsRefused(t *testing.T) {
	if _, err := openPool(dbSettings{url: "postgres://127.0.0.1:1/none", pool: 0}); err == nil {
		t.Fatal("a pool of 0 was accepted")
	}
}
