package main

import (
	"errors"
	"fmt"
	"os"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func readTargets(path string) ([]vegeta.Target, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	targets, err := vegeta.ReadAllTargets(vegeta.NewJSONTargeter(f, nil, nil))
	if err != nil && !errors.Is(err, vegeta.ErrNoTargets) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("%s: no targets", path)
	}
	return targets, nil
}

// targeter takes the targets in turn, or, with a bodies file, each of its lines once as the next
// request's body: then the plan must be a count of exactly its lines, so that none is left unsent.
func targeter(p plan, targets []vegeta.Target, bodiesPath string) (vegeta.Targeter, error) {
	if bodiesPath == "" {
		return vegeta.NewStaticTargeter(targets...), nil
	}
	f, err := openBodies(p, bodiesPath)
	if err != nil {
		return nil, err
	}
	// Left open for the run: the process ends with it.
	return newBodied(f, targets).target, nil
}
