package profile

import (
	"strings"
	"testing"
)

// The table the bench ran with before it was a file: each profile's
// values as scripts/bench's case statement had them.
func TestProfilesKeepTheBenchsValues(t *testing.T) {
	for name, want := range map[string]string{
		"quick":  "PROFILE_RUNS=1 PROFILE_WARMUP=1 PROFILE_DURATION=5 WARM_EACH=1 WARMUP_SLICE_S=1 WARMUP_MAX_S=15 QUIET_FOR=5 QUIET_TIMEOUT=60 QUIET_REQUIRED=0 MAX_REDO=0 CANARY_REDO=0 PROFILE_SAMPLER_CHECK=0 PAIRED=0 LATE_IMAGES=1 PROFILE_REQUEST_TIMEOUT_S=30 SAMPLES_PER_WINDOW=75 SAMPLER_MIN_MS=100 LEAD_IN_S=2",
		"full":   "PROFILE_RUNS=5 PROFILE_WARMUP=3 PROFILE_DURATION=15 WARM_EACH=1 WARMUP_SLICE_S=1 WARMUP_MAX_S=30 QUIET_FOR=60 QUIET_TIMEOUT=900 QUIET_REQUIRED=1 MAX_REDO=2 CANARY_REDO=1 PROFILE_SAMPLER_CHECK=1 PAIRED=0 LATE_IMAGES=0 PROFILE_REQUEST_TIMEOUT_S=30 SAMPLES_PER_WINDOW=75 SAMPLER_MIN_MS=100 LEAD_IN_S=2",
		"paired": "PROFILE_RUNS=20 PROFILE_WARMUP=3 PROFILE_DURATION=2 WARM_EACH=1 WARMUP_SLICE_S=1 WARMUP_MAX_S=30 QUIET_FOR=60 QUIET_TIMEOUT=900 QUIET_REQUIRED=0 MAX_REDO=0 CANARY_REDO=0 PROFILE_SAMPLER_CHECK=1 PAIRED=1 LATE_IMAGES=0 PROFILE_REQUEST_TIMEOUT_S=30 SAMPLES_PER_WINDOW=75 SAMPLER_MIN_MS=100 LEAD_IN_S=2",
	} {
		p, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(strings.Fields(p.Shell()), " "); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// What one warm-up precedes, as the manifest records it: each row's
// slices of a case when paired, every window when each warms up, else a
// container's first.
func TestWarmupScope(t *testing.T) {
	for name, want := range map[string]string{"quick": "steady", "full": "steady", "paired": "case"} {
		if p, err := Get(name); err != nil || p.WarmupScope() != want {
			t.Errorf("%s: %q %v, want %q", name, p.WarmupScope(), err, want)
		}
	}
	if got := (Profile{}).WarmupScope(); got != "container" {
		t.Errorf("a profile that warms no window but a container's first: %q", got)
	}
}

func TestAnUnknownProfileNamesTheOnesThereAre(t *testing.T) {
	_, err := Get("fast")
	if err == nil || err.Error() != "--profile 'fast' is not a profile (full, paired, quick)" {
		t.Errorf("Get(fast): %v", err)
	}
}

func TestABadValueIsRefusedWithItsKey(t *testing.T) {
	p, _ := Get("quick")
	p.WarmupMaxS = 0
	if err := p.check(); err == nil || !strings.Contains(err.Error(), "warmup_max_s = 0") {
		t.Errorf("check: %v", err)
	}
}
