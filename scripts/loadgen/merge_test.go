package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Two runners, each sending its share of a plan, read back as one run of the whole plan: the same
// count, checks and percentiles as the runners' latencies taken together.
func TestRunnersResultsMergeIntoOneExactRunOfTheWholePlan(t *testing.T) {
	srv, _ := server(t)
	dir := t.TempDir()
	whole := plan{model: "closed", users: 6, iterations: 5, timeout: time.Minute, expect: [][]byte{[]byte(`"mode":"virtual"`)}}
	share := whole
	share.users = 3
	var files []string
	var latencies []float64
	for i, url := range []string{srv.URL + "/ok", srv.URL + "/fail"} {
		path := filepath.Join(dir, "runner-"+string(rune('0'+i))+".bin")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		enc := vegeta.NewEncoder(f)
		s := newSummary(share)
		attack(share, vegeta.NewStaticTargeter(vegeta.Target{Method: "GET", URL: url}), s.add, func(r *vegeta.Result) {
			if err := enc.Encode(r); err != nil {
				t.Error(err)
			}
			latencies = append(latencies, float64(r.Latency)/1e6)
		})
		_ = f.Close()
		files = append(files, path)
	}
	out := filepath.Join(dir, "merged.json")
	if err := mergeRun(whole, files, out); err != nil {
		t.Fatal(err)
	}
	var got Summary
	raw, _ := os.ReadFile(out)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Requests != 30 || got.Planned != 30 || got.Failed != 15 || got.StatusCodes["503"] != 15 {
		t.Fatalf("requests %d planned %d failed %d codes %v; want 30, 30, 15, 15 503s",
			got.Requests, got.Planned, got.Failed, got.StatusCodes)
	}
	if want := stats(latencies); got.LatencyMs.P99 != want.P99 || got.LatencyMs.P50 != want.P50 || got.LatencyMs.Count != 30 {
		t.Fatalf("merged latencies %+v; the runners' together %+v", got.LatencyMs, want)
	}
}

func TestAMissingRunnerFileFailsTheMerge(t *testing.T) {
	p := plan{model: "closed", users: 1, iterations: 1, timeout: time.Minute}
	if err := mergeRun(p, []string{filepath.Join(t.TempDir(), "none.bin")}, filepath.Join(t.TempDir(), "s.json")); err == nil {
		t.Fatal("a runner's missing results must fail the merge")
	}
}
