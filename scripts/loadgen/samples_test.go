package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Every request a row: its send time, latency, status and error, the failed ones as they failed.
func TestSamplesHoldEveryRequestWithItsStatus(t *testing.T) {
	srv, _ := server(t)
	path := filepath.Join(t.TempDir(), "samples.csv")
	sink, closeSamples, err := samplesSink(path)
	if err != nil {
		t.Fatal(err)
	}
	p := plan{model: "closed", users: 2, iterations: 3, timeout: time.Minute}
	before := time.Now().UnixMicro()
	attack(p, vegeta.NewStaticTargeter(vegeta.Target{Method: "GET", URL: srv.URL + "/fail"}), sink)
	after := time.Now().UnixMicro()
	if err := closeSamples(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 || rows[0][0] != "timestamp_us" {
		t.Fatalf("want a header and 6 rows, got %v", rows)
	}
	for _, row := range rows[1:] {
		sent, err := strconv.ParseInt(row[0], 10, 64)
		if err != nil || sent < before || sent > after || row[2] != "503" {
			t.Fatalf("row %v: want status 503 sent between %d and %d (Unix microseconds)", row, before, after)
		}
	}
}
