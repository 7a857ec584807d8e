package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// mergeRun reads the results of several runners, each of which sent its share of the plan `p`, as
// one run of the whole plan: every result through the same summary (its checks and fields from the
// bodies vegeta kept), so that the percentiles are exact, and the planned count is the whole plan's.
func mergeRun(p plan, files []string, summaryPath string) error {
	if summaryPath == "" {
		return errors.New("-merge needs -summary")
	}
	s := newSummary(p)
	for _, path := range files {
		if err := readResults(path, s.add); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return writeJSON(summaryPath, s.close())
}

// readResults hands every result of a -results file to `sink`, in the order they were written.
func readResults(path string, sink func(*vegeta.Result)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := vegeta.NewDecoder(f)
	for {
		var r vegeta.Result
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		sink(&r)
	}
}

// resultsSink writes every result to a -results file in vegeta's own encoding (gob), which
// readResults (and `vegeta report`) reads back.
func resultsSink(path string) (func(*vegeta.Result), func() error, error) {
	out, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	enc := vegeta.NewEncoder(out)
	sink := func(r *vegeta.Result) {
		if err := enc.Encode(r); err != nil {
			log.Fatal(err)
		}
	}
	return sink, out.Close, nil
}
