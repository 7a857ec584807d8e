package main

import (
	"encoding/csv"
	"os"
	"strconv"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// samplesHeader names the columns of -samples: every request of a run, one a row, in the order
// the answers came: when it was sent (Unix microseconds), how long its answer took (microseconds),
// its HTTP status (0: none) and vegeta's error text ("" for none). What a failover reads: which
// requests failed, and when.
var samplesHeader = []string{"timestamp_us", "latency_us", "status", "error"}

// samplesSink writes every result as a row of -samples; close flushes it.
func samplesSink(path string) (func(*vegeta.Result), func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	w := csv.NewWriter(f)
	if err := w.Write(samplesHeader); err != nil {
		return nil, nil, err
	}
	var failed error
	sink := func(r *vegeta.Result) {
		row := []string{
			strconv.FormatInt(r.Timestamp.UnixMicro(), 10), strconv.FormatInt(r.Latency.Microseconds(), 10),
			strconv.Itoa(int(r.Code)), r.Error,
		}
		if err := w.Write(row); err != nil && failed == nil {
			failed = err
		}
	}
	closer := func() error {
		w.Flush()
		if failed != nil {
			return failed
		}
		if err := w.Error(); err != nil {
			return err
		}
		return f.Close()
	}
	return sink, closer, nil
}
