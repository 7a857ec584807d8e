package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// answers reads what the lab's loads report from the answers themselves, beyond their latency:
// numeric fields of each successful answer's JSON body (-field: the tasks' elapsed time, a chunk's
// records and per-table milliseconds), and the latency of the answers whose URL holds a text
// (-latency-of: the mix's short requests apart from its long ones).
type answers struct {
	fields  []string
	subsets []string
	values  map[string][]float64
	latency map[string][]float64
}

func newAnswers(fields, subsets []string) *answers {
	a := &answers{fields: fields, subsets: subsets, values: map[string][]float64{}, latency: map[string][]float64{}}
	for _, f := range fields {
		a.values[f] = nil
	}
	for _, s := range subsets {
		a.latency[s] = nil
	}
	return a
}

// wantsBody is whether the answers' bodies must be read (they are dropped otherwise).
func (a *answers) wantsBody() bool { return len(a.fields) > 0 }

// add reads one successful answer: its URL for the subsets, its body for the fields. A field that
// is missing, not a number, or below zero (the service's "not measured", e.g. a task's memory when
// the tasks were too short to catch asleep) is left out of that field's figures.
func (a *answers) add(url string, latency time.Duration, body []byte) {
	for _, s := range a.subsets {
		if strings.Contains(url, s) {
			a.latency[s] = append(a.latency[s], float64(latency)/1e6)
		}
	}
	if !a.wantsBody() {
		return
	}
	var doc map[string]any
	if json.Unmarshal(body, &doc) != nil {
		return
	}
	for _, f := range a.fields {
		if v, ok := number(lookup(doc, f)); ok && v >= 0 {
			a.values[f] = append(a.values[f], v)
		}
	}
}

// lookup walks a dotted path through nested objects ("tableMs.recruit"); in a list, a step
// "key=value" takes the first object whose key holds that value ("tables.role=PARENT.ms"); nil
// where the path ends early.
func lookup(doc map[string]any, path string) any {
	var at any = doc
	for _, step := range strings.Split(path, ".") {
		switch node := at.(type) {
		case map[string]any:
			at = node[step]
		case []any:
			key, value, _ := strings.Cut(step, "=")
			at = nil
			for _, item := range node {
				if obj, ok := item.(map[string]any); ok && fmt.Sprint(obj[key]) == value {
					at = obj
					break
				}
			}
		default:
			return nil
		}
	}
	return at
}

// number reads a JSON number, or a string holding one (proto3's JSON writes 64-bit integers so).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case string:
		f, err := strconv.ParseFloat(n, 64)
		return f, err == nil
	}
	return 0, false
}

// close gives each field's and each subset's figures (a field with no value has a count of 0).
func (a *answers) close() (map[string]Stats, map[string]Stats) {
	fields := make(map[string]Stats, len(a.values))
	for f, v := range a.values {
		fields[f] = stats(v)
	}
	subsets := make(map[string]Stats, len(a.latency))
	for s, v := range a.latency {
		subsets[s] = stats(v)
	}
	return fields, subsets
}
