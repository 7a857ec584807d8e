package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// licenceText is one of licensecheck's own sample texts (its module ships them under testdata).
func licenceText(t *testing.T, name string) []byte {
	t.Helper()
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/licensecheck").Output()
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	// The samples start with a header of the test's own, up to a blank line.
	_, body, _ := strings.Cut(string(text), "\n\n")
	return []byte(body)
}

// program writes a main module that links a dependency under the given licence (a local module
// through a replace directive: nothing is fetched) and returns the main module's directory.
func program(t *testing.T, licence []byte) string {
	t.Helper()
	root := t.TempDir()
	dep, app := filepath.Join(root, "dep"), filepath.Join(root, "app")
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dep, "go.mod"), "module example.com/dep\n\ngo 1.24\n")
	write(filepath.Join(dep, "dep.go"), "package dep\n\nfunc Hello() string { return \"hello\" }\n")
	if licence != nil {
		write(filepath.Join(dep, "LICENSE"), string(licence))
	}
	write(filepath.Join(app, "go.mod"), "module example.com/app\n\ngo 1.24\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ../dep\n")
	write(filepath.Join(app, "main.go"), "package main\n\nimport \"example.com/dep\"\n\nfunc main() { println(dep.Hello()) }\n")
	return app
}

func verdict(t *testing.T, licence []byte) Module {
	t.Helper()
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	mods, _, err := check([]string{program(t, licence)})
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) != 1 || mods[0].Path != "example.com/dep" {
		t.Fatalf("modules %+v, want example.com/dep alone", mods)
	}
	return mods[0]
}

func TestAPlantedAGPLDependencyIsRefused(t *testing.T) {
	m := verdict(t, licenceText(t, "AGPL-3.0.t1"))
	if !strings.HasPrefix(m.Licence, "AGPL-3.0") || !strings.Contains(m.Refused, "excluded by the lab's policy") {
		t.Fatalf("AGPL-3.0 module: licence %q, refused %q", m.Licence, m.Refused)
	}
}

func TestAnUnlicensedDependencyIsRefused(t *testing.T) {
	if m := verdict(t, nil); m.Licence != "" || !strings.Contains(m.Refused, "no licence") {
		t.Fatalf("module without a licence: licence %q, refused %q", m.Licence, m.Refused)
	}
}

func TestAPermissiveDependencyPasses(t *testing.T) {
	if m := verdict(t, licenceText(t, "MIT.t1")); m.Licence != "MIT" || m.Refused != "" {
		t.Fatalf("MIT module: licence %q, refused %q", m.Licence, m.Refused)
	}
}
