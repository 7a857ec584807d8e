package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// bodied sends each line of a file as the body of one request, in the file's order and each once,
// over the targets taken in turn: the chunk streams of seed D, whose bodies (up to a few hundred KB
// each) are read as the requests go out rather than held in memory. The run ends with the file
// (vegeta's attack stops at ErrNoTargets): plan exactly as many requests as there are lines.
type bodied struct {
	mu      sync.Mutex
	lines   *bufio.Reader
	targets []vegeta.Target
	next    int
}

func newBodied(r io.Reader, targets []vegeta.Target) *bodied {
	return &bodied{lines: bufio.NewReaderSize(r, 1<<20), targets: targets}
}

func (b *bodied) target(t *vegeta.Target) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	line, err := b.lines.ReadBytes('\n')
	if errors.Is(err, io.EOF) && len(line) > 0 {
		err = nil // a last line without its newline
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return vegeta.ErrNoTargets
		}
		return err
	}
	*t = b.targets[b.next%len(b.targets)]
	t.Body = bytes.TrimRight(line, "\r\n")
	b.next++
	return nil
}

// countLines is the number of bodies a file holds, checked against the plan before any is sent.
func countLines(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var n uint64
	for {
		line, err := r.ReadSlice('\n')
		if len(line) > 0 && !errors.Is(err, bufio.ErrBufferFull) {
			n++
		}
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
	}
}
