// licences: the licence gate for the Go programs the lab builds itself (scripts/loadgen,
// scripts/reference). For each module directory given, every module its packages link
// (`go list -deps`), that module's licence as Google's licensecheck classifies the LICENSE or
// COPYING file at its root, and a refusal for what the lab's policy excludes (`refusedIDs`: a
// licence that reaches every server using the code, AGPL and SSPL; source-available terms, BUSL,
// Elastic, Commons Clause, non-commercial ones), or no licence it can name (unlicensed or
// unrecognised). It exits 1 on a refusal; -md prints the table docs/licences.md carries.
//
// Run: licences [-md] ../loadgen ../reference
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/licensecheck"
)

// refusedIDs are the prefixes of the licensecheck IDs (SPDX where one exists) the policy refuses.
var refusedIDs = []string{"AGPL", "SSPL", "BUSL", "Elastic", "CommonsClause", "CC-BY-NC", "PolyForm", "Parity", "Prosperity"}

// minCoverage is the share of a licence file's words a known licence must match (a file of
// several licences, or with a preamble, still names its main one).
const minCoverage = 75

// Module is one module a program links, with its verdict.
type Module struct {
	Path, Version, Dir string
	Licence            string // the licences found, e.g. "MIT", or "" when none is named
	Refused            string // why the policy refuses it, or ""
}

type listed struct {
	Module *struct {
		Path, Version, Dir string
		Main               bool
	}
}

// linked lists the modules the packages of the module at dir link, the main module aside.
func linked(dir string) ([]Module, error) {
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = dir
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list in %s: %v: %s", dir, err, errs.String())
	}
	seen := map[string]Module{}
	dec := json.NewDecoder(&out)
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if p.Module != nil && !p.Module.Main {
			seen[p.Module.Path] = Module{Path: p.Module.Path, Version: p.Module.Version, Dir: p.Module.Dir}
		}
	}
	mods := make([]Module, 0, len(seen))
	for _, m := range seen {
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	return mods, nil
}

// judge names a module's licence and applies the policy to it.
func judge(m Module) Module {
	var names []string
	files, _ := filepath.Glob(filepath.Join(m.Dir, "[LlCc][IiOo][CcPp]*"))
	for _, f := range files {
		base := strings.ToUpper(filepath.Base(f))
		if !strings.HasPrefix(base, "LICENSE") && !strings.HasPrefix(base, "LICENCE") && !strings.HasPrefix(base, "COPYING") {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		cov := licensecheck.Scan(text)
		if cov.Percent < minCoverage {
			continue
		}
		for _, match := range cov.Match {
			names = append(names, match.ID)
		}
	}
	names = dedupe(names)
	m.Licence = strings.Join(names, ", ")
	if m.Licence == "" {
		m.Refused = "no licence named (unlicensed, source-available or unrecognised)"
	}
	for _, id := range names {
		for _, refused := range refusedIDs {
			if strings.HasPrefix(id, refused) {
				m.Refused = id + " is excluded by the lab's policy (AGPL, SSPL, BUSL, source-available)"
			}
		}
	}
	return m
}

func dedupe(names []string) []string {
	sort.Strings(names)
	out := names[:0]
	for i, n := range names {
		if i == 0 || n != names[i-1] {
			out = append(out, n)
		}
	}
	return out
}

// check judges every module the programs at dirs link; it returns them and how many it refused.
func check(dirs []string) ([]Module, int, error) {
	var all []Module
	refused := 0
	for _, dir := range dirs {
		mods, err := linked(dir)
		if err != nil {
			return nil, 0, err
		}
		for _, m := range mods {
			m = judge(m)
			if m.Refused != "" {
				refused++
			}
			all = append(all, m)
		}
	}
	return all, refused, nil
}

func main() {
	md := flag.Bool("md", false, "print a Markdown table (module, version, licence)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: licences [-md] MODULE_DIR...")
		os.Exit(2)
	}
	mods, refused, err := check(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if *md {
		fmt.Println("| Go module | version | licence |\n|---|---|---|")
	}
	for _, m := range mods {
		switch {
		case *md:
			fmt.Printf("| %s | %s | %s |\n", m.Path, m.Version, m.Licence)
		case m.Refused != "":
			fmt.Printf("REFUSED %s %s: %s (%s)\n", m.Path, m.Version, m.Refused, m.Licence)
		default:
			fmt.Printf("ok      %s %s: %s\n", m.Path, m.Version, m.Licence)
		}
	}
	if refused > 0 {
		fmt.Fprintf(os.Stderr, "licences: %d module(s) refused by the lab's policy (docs/licences.md)\n", refused)
		os.Exit(1)
	}
}
