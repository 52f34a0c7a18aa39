package render

import (
	_ "stacklab/formats/golden" // knows -update

	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"stacklab/analysis/results"
	"stacklab/analysis/summary"
	"stacklab/analysis/synth"
)

func summaryOf(t *testing.T, sp synth.Spec) *summary.Summary {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := synth.Write(dir, sp); err != nil {
		t.Fatal(err)
	}
	f, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := summary.Compute(f, summary.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The report must open offline: no script, no stylesheet or image from
// anywhere, nothing but the SVG namespace as a URL.
func TestHTMLSelfContained(t *testing.T) {
	page := HTML(summaryOf(t, synth.IO()))
	if bytes.Contains(page, []byte("<script")) {
		t.Error("report.html holds a script: it must read without JavaScript")
	}
	urls := regexp.MustCompile(`(?:https?:)?//[a-zA-Z0-9.-]+`).FindAll(page, -1)
	for _, u := range urls {
		if string(u) != "http://www.w3.org" {
			t.Errorf("report.html refers to %s: it must need no network", u)
		}
	}
}

// checkScript is added to a copy of the report (never to the report) so
// that headless Chromium writes, into the DOM it dumps, whether the
// browser laid out every chart and drew every bar.
const checkScript = `<script>
document.addEventListener("DOMContentLoaded", () => {
  const out = [];
  for (const svg of document.querySelectorAll("svg.chart")) {
    const box = svg.getBoundingClientRect();
    let drawn = 0;
    for (const r of svg.querySelectorAll("rect.bar, circle.point")) {
      const b = r.getBBox();
      if (b.width > 0 && b.height > 0) drawn++;
    }
    const want = Number(svg.dataset.bars);
    const ok = box.width > 100 && box.height > 10 && drawn === want;
    out.push((ok ? "drawn " : "NOT DRAWN ") + svg.id + " bars=" + drawn + "/" + want);
  }
  const pre = document.createElement("pre");
  pre.id = "chart-check";
  pre.textContent = out.join("\n");
  document.body.appendChild(pre);
});
</script>`

func TestChartsDrawnInChromium(t *testing.T) {
	page := HTML(summaryOf(t, synth.IO()))
	lines := chartCheck(t, string(page))
	want := strings.Count(string(page), `<svg class="chart"`)
	if want == 0 || len(lines) != want {
		t.Fatalf("chromium saw %d charts, the page has %d", len(lines), want)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "drawn ") {
			t.Errorf("chart not drawn: %s", l)
		}
	}
	t.Logf("%d charts drawn", len(lines))
}

// The check itself must be able to fail: bars hidden by a stylesheet are
// reported as not drawn.
func TestChartCheckSeesHiddenBars(t *testing.T) {
	page := string(HTML(summaryOf(t, synth.Pages())))
	page = strings.Replace(page, "</style>", "svg.chart rect.bar { display: none; }\n</style>", 1)
	for _, l := range chartCheck(t, page) {
		if strings.HasPrefix(l, "drawn ") {
			t.Errorf("hidden bars reported as drawn: %s", l)
		}
	}
}

// chartCheck opens page in headless Chromium and returns one line per
// chart: "drawn ID bars=N/N" or "NOT DRAWN ...".
func chartCheck(t *testing.T, page string) []string {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (apt-get install chromium): the charts were not checked in a browser")
	}
	dir := t.TempDir()
	probe := filepath.Join(dir, "report-check.html")
	withCheck := strings.Replace(page, "</body>", checkScript+"\n</body>", 1)
	if err := os.WriteFile(probe, []byte(withCheck), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--virtual-time-budget=5000", "--dump-dom", "file://"+probe)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, lastLines(errb.String(), 5))
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("chromium did not finish within 90 s")
	}
	m := regexp.MustCompile(`(?s)<pre id="chart-check">(.*?)</pre>`).FindSubmatch(out.Bytes())
	if m == nil {
		t.Fatalf("chromium's DOM has no chart check: the page did not load\n%s", lastLines(errb.String(), 5))
	}
	return strings.Split(strings.TrimSpace(string(m[1])), "\n")
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
