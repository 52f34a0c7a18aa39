package manifest

import (
	"encoding/json"
	"reflect"
	"testing"

	_ "stacklab/formats/golden" // every analysis test package knows -update
)

func notQuiet(t *testing.T, raw string, maxLoad float64) []string {
	t.Helper()
	q, err := ParseQuiet(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return NotQuiet(q, maxLoad)
}

func TestNotQuietTakesTheGatesReasons(t *testing.T) {
	why := notQuiet(t, `{"quiet":false,"why":["load1 9.80 ≥ 2.0 before the run (the gate waited 60 s and went on)"],"waits":[{"quiet":false,"load":2,"load1":9.8}],"share":0.5,"window_s":30,"load1":[9.8],"busiest":[]}`, 2)
	if want := []string{"load1 9.80 ≥ 2.0 before the run (the gate waited 60 s and went on)"}; !reflect.DeepEqual(why, want) {
		t.Errorf("%q, want %q", why, want)
	}
	// the gate's verdict stands: the load during the run is the lab's own too
	if why := notQuiet(t, `{"quiet":true,"waits":[{"quiet":true,"load":2,"load1":0.4}],"share":0.5,"window_s":30,"load1":[0.4,6.2],"busiest":[]}`, 2); why != nil {
		t.Errorf("a quiet gate read as %q", why)
	}
	// a run still measuring holds only its waits so far
	if why := notQuiet(t, `{"quiet":false,"why":["load1 3.00 ≥ 2.0 before the run (the gate waited 60 s and went on)"],"waits":[{"quiet":false}]}`, 2); len(why) != 1 {
		t.Errorf("gate file alone: %q", why)
	}
}

// The committed runs of 2026-12-01 recorded before the gate kept its waits:
// "quiet" at a load that no wait of the gate can have let through.
func TestNotQuietReadsOldEvidence(t *testing.T) {
	all := `{"quiet":true,"share":0.5,"window_s":580.098,"load1":[5.54,5.34,11.87,2.61],"busiest":[{"pid":1,"comm":"process_api","cpu_share":0.007}]}`
	want := []string{"load1 5.54 ≥ 2.0 when the run began (its gate's wait cannot have held; this manifest does not record it)"}
	if why := notQuiet(t, all, 2); !reflect.DeepEqual(why, want) {
		t.Errorf("%q, want %q", why, want)
	}
	// without the host profile's threshold nothing is inferred
	if why := notQuiet(t, all, 0); why != nil {
		t.Errorf("no threshold: %q", why)
	}
	twoApps := `{"quiet":false,"share":0.5,"window_s":39.604,"load1":[10.73,11.48],"busiest":[{"pid":3221,"comm":"rustc","cpu_share":0.671},{"pid":5663,"comm":"gzip","cpu_share":0.249}]}`
	want = []string{
		"load1 10.73 ≥ 2.0 when the run began (its gate's wait cannot have held; this manifest does not record it)",
		"rustc (pid 3221) outside the lab used 0.67 CPU > 0.50 over the 40 s run",
	}
	if why := notQuiet(t, twoApps, 2); !reflect.DeepEqual(why, want) {
		t.Errorf("%q\nwant %q", why, want)
	}
	// a quiet full-profile run of the same day: load 0.7 at its start
	if why := notQuiet(t, `{"quiet":true,"share":0.5,"window_s":900,"load1":[0.7,3.9],"busiest":[{"pid":1,"comm":"process_api","cpu_share":0.004}]}`, 2); why != nil {
		t.Errorf("quiet run read as %q", why)
	}
}

// The words for evidence the bench no longer writes stay as they were:
// the summaries of committed runs are re-derived from them.
func TestNotQuietWordsStay(t *testing.T) {
	for raw, want := range map[string][]string{
		// a gate's verdict without its reasons
		`{"quiet":false,"waits":[{"quiet":false,"load":2,"load1":3}]}`: {"the gate said not quiet without a reason"},
		// a watch's report whose processes were all under its share
		`{"quiet":false,"share":0.5,"window_s":30,"load1":[0.4],"busiest":[{"pid":7,"comm":"cc1","cpu_share":0.3}]}`: {"the quiet watch said not quiet"},
		// no share: no process is judged against one
		`{"quiet":false,"window_s":30,"load1":[0.4],"busiest":[{"pid":7,"comm":"cc1","cpu_share":0.3}]}`: {"the quiet watch said not quiet"},
		`{"quiet":true,"window_s":30,"load1":[0.4],"busiest":[{"pid":7,"comm":"cc1","cpu_share":0.3}]}`:  nil,
		// a share of 0 is a share: every busy process is over it
		`{"quiet":true,"share":0,"window_s":30,"load1":[0.4],"busiest":[{"pid":7,"comm":"cc1","cpu_share":0.3}]}`: {"cc1 (pid 7) outside the lab used 0.30 CPU > 0.00 over the 30 s run"},
		// a window under 10 s is said in whole seconds, as the committed summaries say it
		`{"quiet":false,"share":0.5,"window_s":4.5,"load1":[0.4],"busiest":[{"pid":7,"comm":"cc1","cpu_share":0.7}]}`: {"cc1 (pid 7) outside the lab used 0.70 CPU > 0.50 over the 4 s run"},
	} {
		if why := notQuiet(t, raw, 2); !reflect.DeepEqual(why, want) {
			t.Errorf("%s:\n%q\nwant %q", raw, why, want)
		}
	}
}

func TestParseQuiet(t *testing.T) {
	if q, err := ParseQuiet(nil); q != nil || err != nil {
		t.Errorf("no evidence: %v, %v", q, err)
	}
	if q, err := ParseQuiet(json.RawMessage(`null`)); q != nil || err != nil {
		t.Errorf("null evidence: %v, %v", q, err)
	}
	for _, bad := range []string{`{"quiet":"yes"}`, `{"quiet":true,"load1":`, `[1]`} {
		if _, err := ParseQuiet(json.RawMessage(bad)); err == nil {
			t.Errorf("%s: read without an error", bad)
		}
	}
	if why := NotQuiet(nil, 2); why != nil {
		t.Errorf("nil evidence: %q", why)
	}
}

func TestQuietLoad(t *testing.T) {
	for v, want := range map[string]float64{"2.0": 2, "": 0, "x": 0, "-1": 0} {
		if got := (Host{Settings: map[string]string{"QUIET_LOAD": v}}).QuietLoad(); got != want {
			t.Errorf("QUIET_LOAD %q: %g, want %g", v, got, want)
		}
	}
}
