package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func get(t *testing.T, path string) *httptest.ResponseRecorder {
	t.Helper()
	recorder := httptest.NewRecorder()
	routes().ServeHTTP(recorder, httptest.NewRequest(http.MethodGet, path, nil))
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
