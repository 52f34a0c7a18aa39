package render

import (
	"regexp"
	"strings"
	"testing"

	"stacklab/analysis/synth"
)

// The capacity chart (p99 against the offered rate, a line per stack, the
// target as a line) is drawn by a browser: every step's point laid out,
// and a line per stack.
func TestCapacityChartDrawnInChromium(t *testing.T) {
	page := string(HTML(summaryOf(t, synth.CapacityCapped())))
	if !strings.Contains(page, `<svg class="chart" id="capacity-capacity"`) {
		t.Fatal("report.html has no capacity chart")
	}
	if n := strings.Count(page, `<polyline class="series"`); n != 2 {
		t.Errorf("%d lines, want one per stack (2)", n)
	}
	if !strings.Contains(page, `class="target"`) || !strings.Contains(page, "target 100 ms") {
		t.Error("no target line")
	}
	if !regexp.MustCompile(`class="point generator"`).MatchString(page) {
		t.Error("the step the generator could not drive is not marked")
	}
	lines := chartCheck(t, page)
	found := false
	for _, l := range lines {
		if strings.Contains(l, "capacity-capacity") {
			found = true
			if !strings.HasPrefix(l, "drawn ") {
				t.Errorf("capacity chart: %s", l)
			}
			t.Log(l)
		}
	}
	if !found {
		t.Errorf("chromium saw no capacity chart: %v", lines)
	}
}

// A users ramp's chart: p99 against the users, a line per stack, its
// points titled in users.
func TestUsersChart(t *testing.T) {
	page := string(HTML(summaryOf(t, synth.Users())))
	if !strings.Contains(page, `<svg class="chart" id="capacity-users"`) {
		t.Fatal("report.html has no users chart")
	}
	for _, want := range []string{"p99 (ms, log) against the users (log)", " users, p99 "} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(page, "offered req/s") {
		t.Error("a users chart or steps table speaks of an offered rate")
	}
	// The header speaks of the users' steps, not of windows and
	// connections a users run does not have.
	md := string(Markdown(summaryOf(t, synth.Users())))
	if strings.Contains(md, " connections)") || !strings.Contains(md, "users steps of a ") || !strings.Contains(md, "p50 and p99 are k6's over those requests") {
		t.Errorf("a users run's header speaks of windows: %s", firstLines(md, 12))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
