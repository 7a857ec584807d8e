package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestFieldsOfTheAnswersAreReportedAndNotMeasuredOnesLeftOut(t *testing.T) {
	n := 0
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("/tasks", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		n++
		i := n
		mu.Unlock()
		// The third answer could not measure its memory (-1); one answer has no tableMs at all.
		rss := map[bool]int{true: -1, false: 1000 * i}[i == 3]
		body := map[string]any{"elapsedMs": 10 * i, "rss": rss, "tableMs": map[string]any{"recruit": i}}
		if i == 4 {
			delete(body, "tableMs")
		}
		_ = json.NewEncoder(w).Encode(body)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	p := plan{model: "closed", users: 1, iterations: 5, timeout: time.Minute, fields: []string{"elapsedMs", "rss", "tableMs.recruit", "absent"}}
	got := run(p, srv.URL+"/tasks")
	elapsed, rss, table := got.Fields["elapsedMs"], got.Fields["rss"], got.Fields["tableMs.recruit"]
	if elapsed.Count != 5 || elapsed.Min != 10 || elapsed.P50 != 30 || elapsed.Max != 50 || elapsed.Sum != 150 {
		t.Errorf("elapsedMs %+v", elapsed)
	}
	if rss.Count != 4 || rss.Min != 1000 || rss.Max != 5000 {
		t.Errorf("rss must leave the -1 out: %+v", rss)
	}
	if table.Count != 4 || table.Sum != 1+2+3+5 {
		t.Errorf("tableMs.recruit %+v", table)
	}
	if absent, ok := got.Fields["absent"]; !ok || absent.Count != 0 {
		t.Errorf("a field no answer holds must be reported with a count of 0: %+v, %v", absent, ok)
	}
}

func TestLatencyOfTheAnswersWhoseURLHoldsATextIsApart(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/mixed", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("kind") == "long" {
			time.Sleep(30 * time.Millisecond)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	p := plan{model: "closed", users: 2, iterations: 10, timeout: time.Minute, latencyOf: []string{"kind=short"}}
	s := newSummary(p)
	tr := vegeta.NewStaticTargeter(
		vegeta.Target{Method: "GET", URL: srv.URL + "/mixed?kind=short"},
		vegeta.Target{Method: "GET", URL: srv.URL + "/mixed?kind=short"},
		vegeta.Target{Method: "GET", URL: srv.URL + "/mixed?kind=short"},
		vegeta.Target{Method: "GET", URL: srv.URL + "/mixed?kind=long"},
	)
	attack(p, tr, s.add)
	got := s.close()
	short := got.LatencyOf["kind=short"]
	// 20 requests, targets in turn: 15 short; the long ones (30 ms) are in the whole run's max only.
	if got.Requests != 20 || short.Count != 15 || got.LatencyMs.Max < 30 || short.Max >= got.LatencyMs.Max {
		t.Fatalf("requests %d, short %+v, all %+v", got.Requests, short, got.LatencyMs)
	}
}

func TestBodiesAreSentOnceEachInOrder(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	mux := http.NewServeMux()
	mux.HandleFunc("/batch", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Header.Get("Content-Type")+" "+string(b))
		mu.Unlock()
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := t.TempDir()
	bodies := filepath.Join(dir, "bodies.jsonl")
	// A long line (past the reader's buffer) among short ones, the last without its newline.
	long := "[" + strings.Repeat("1,", 600_000) + "1]"
	if err := os.WriteFile(bodies, []byte("[1]\n"+long+"\n[3]"), 0o644); err != nil {
		t.Fatal(err)
	}
	targets := []vegeta.Target{{Method: "POST", URL: srv.URL + "/batch", Header: http.Header{"Content-Type": {"application/json"}}}}
	if _, err := targeter(plan{model: "closed", users: 1, iterations: 2}, targets, bodies); err == nil {
		t.Fatal("a plan of 2 requests over 3 bodies must be refused")
	}
	p := plan{model: "closed", users: 1, iterations: 3, timeout: time.Minute}
	tr, err := targeter(p, targets, bodies)
	if err != nil {
		t.Fatal(err)
	}
	s := newSummary(p)
	attack(p, tr, s.add)
	got := s.close()
	want := []string{"application/json [1]", "application/json " + long, "application/json [3]"}
	if got.Requests != 3 || got.Failed != 0 || len(seen) != 3 {
		t.Fatalf("requests %d, failed %d, seen %d", got.Requests, got.Failed, len(seen))
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("body %d: %.40q, want %.40q", i, seen[i], want[i])
		}
	}
}
