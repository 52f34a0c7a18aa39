package render

import (
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/sizes"
	"stacklab/analysis/synth"
)

// The size report's four bar charts, laid out and drawn by a browser.
func TestSizeChartsDrawnInChromium(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "size")
	if err := synth.WriteSize(dir, synth.SizeSpec{Runs: 3, Host: synth.LocalHost()}); err != nil {
		t.Fatal(err)
	}
	z, err := sizes.Load(dir, sizes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := string(SizeFiles(z)[2].Data)
	lines := chartCheck(t, page)
	if want := strings.Count(page, `<svg class="chart"`); want != 4 || len(lines) != want {
		t.Fatalf("chromium saw %d charts, the page has %d, want 4", len(lines), want)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "drawn ") {
			t.Errorf("chart not drawn: %s", l)
		}
	}
	t.Log(strings.Join(lines, "; "))
}
