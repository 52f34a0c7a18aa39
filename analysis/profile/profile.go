// Package profile owns the bench's profiles (profiles.toml, embedded):
// runs, warm-up, window, the quiet gate, redo limits, timeouts and the
// sampler's cadence, one typed table per profile. The bench asks for one
// through `plan args` (Shell, for its --profile NAME); the manifest keeps
// the table it ran with, and the summary header prints it.
package profile

import (
	"bytes"
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

//go:embed profiles.toml
var file []byte

// Profile is one profile's table, as the manifest records it.
type Profile struct {
	Name            string `toml:"-" json:"name"`
	About           string `toml:"about" json:"about"`
	Runs            int    `toml:"runs" json:"runs"`
	WarmupS         int    `toml:"warmup_s" json:"warmup_s"`
	WindowS         int    `toml:"window_s" json:"window_s"`
	WarmEach        bool   `toml:"warm_each" json:"warm_each"`
	WarmupSliceS    int    `toml:"warmup_slice_s" json:"warmup_slice_s"`
	WarmupMaxS      int    `toml:"warmup_max_s" json:"warmup_max_s"`
	QuietForS       int    `toml:"quiet_for_s" json:"quiet_for_s"`
	QuietTimeoutS   int    `toml:"quiet_timeout_s" json:"quiet_timeout_s"`
	QuietRequired   bool   `toml:"quiet_required" json:"quiet_required"`
	MaxRedo         int    `toml:"max_redo" json:"max_redo"`
	CanaryRedo      bool   `toml:"canary_redo" json:"canary_redo"`
	SamplerCheck    bool   `toml:"sampler_check" json:"sampler_check"`
	Paired          bool   `toml:"paired" json:"paired"`
	LateImages      bool   `toml:"late_images" json:"late_images"`
	RequestTimeoutS int    `toml:"request_timeout_s" json:"request_timeout_s"`
	SamplerSamples  int    `toml:"sampler_samples" json:"sampler_samples"`
	SamplerMinMs    int    `toml:"sampler_min_ms" json:"sampler_min_ms"`
	// LeadInS: a capacity step's attack runs this long at the step's rate
	// before its window, and nothing of it is measured (0: the window
	// begins with the attack, as before 2026-12-02's late runs).
	LeadInS int `toml:"lead_in_s" json:"lead_in_s,omitempty"`
}

// All reads the table: every profile, by name.
func All() (map[string]Profile, error) {
	var raw map[string]Profile
	dec := toml.NewDecoder(bytes.NewReader(file))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("analysis/profile/profiles.toml: %w", err)
	}
	for name, p := range raw {
		p.Name = name
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("analysis/profile/profiles.toml: [%s] %w", name, err)
		}
		raw[name] = p
	}
	return raw, nil
}

func (p Profile) check() error {
	for _, f := range []struct {
		key string
		v   int
	}{{"runs", p.Runs}, {"warmup_s", p.WarmupS}, {"window_s", p.WindowS}, {"warmup_slice_s", p.WarmupSliceS},
		{"warmup_max_s", p.WarmupMaxS}, {"quiet_for_s", p.QuietForS}, {"quiet_timeout_s", p.QuietTimeoutS},
		{"request_timeout_s", p.RequestTimeoutS}, {"sampler_samples", p.SamplerSamples}, {"sampler_min_ms", p.SamplerMinMs}} {
		if f.v <= 0 {
			return fmt.Errorf("%s = %d: want a whole number above 0", f.key, f.v)
		}
	}
	if p.LeadInS < 0 {
		return fmt.Errorf("lead_in_s = %d: want 0 or more", p.LeadInS)
	}
	if p.MaxRedo < 0 {
		return fmt.Errorf("max_redo = %d: want 0 or more", p.MaxRedo)
	}
	if p.WarmupMaxS < p.WarmupS {
		return fmt.Errorf("warmup_max_s = %d is below warmup_s = %d", p.WarmupMaxS, p.WarmupS)
	}
	return nil
}

// Get is one profile; the error names the profiles there are.
func Get(name string) (Profile, error) {
	all, err := All()
	if err != nil {
		return Profile{}, err
	}
	p, ok := all[name]
	if !ok {
		names := make([]string, 0, len(all))
		for n := range all {
			names = append(names, n)
		}
		sort.Strings(names)
		return Profile{}, fmt.Errorf("--profile '%s' is not a profile (%s)", name, strings.Join(names, ", "))
	}
	return p, nil
}

// Shell is the profile as the bench's bash variables, one NAME=VALUE a
// line (booleans 0 or 1): the names are the bench's, this is their one
// source.
func (p Profile) Shell() string {
	b := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	var s strings.Builder
	for _, kv := range []struct {
		k string
		v any
	}{
		{"PROFILE_RUNS", p.Runs}, {"PROFILE_WARMUP", p.WarmupS}, {"PROFILE_DURATION", p.WindowS},
		{"WARM_EACH", b(p.WarmEach)}, {"WARMUP_SLICE_S", p.WarmupSliceS}, {"WARMUP_MAX_S", p.WarmupMaxS},
		{"QUIET_FOR", p.QuietForS}, {"QUIET_TIMEOUT", p.QuietTimeoutS}, {"QUIET_REQUIRED", b(p.QuietRequired)},
		{"MAX_REDO", p.MaxRedo}, {"CANARY_REDO", b(p.CanaryRedo)}, {"PROFILE_SAMPLER_CHECK", b(p.SamplerCheck)},
		{"PAIRED", b(p.Paired)}, {"LATE_IMAGES", b(p.LateImages)}, {"PROFILE_REQUEST_TIMEOUT_S", p.RequestTimeoutS},
		{"SAMPLES_PER_WINDOW", p.SamplerSamples}, {"SAMPLER_MIN_MS", p.SamplerMinMs}, {"LEAD_IN_S", p.LeadInS},
	} {
		fmt.Fprintf(&s, "%s=%v\n", kv.k, kv.v)
	}
	return s.String()
}

// SamplerIntervalMs is the cgroup sampler's interval for windows of
// durationS: the profile's shortest, longer for long windows, so a window
// gets about SamplerSamples samples at most (the sampler shares the load
// generator's CPUs).
func (p Profile) SamplerIntervalMs(durationS int) int {
	if p.SamplerSamples <= 0 {
		return p.SamplerMinMs
	}
	return max(durationS*1000/p.SamplerSamples, p.SamplerMinMs)
}

// WarmupScope is what one warm-up precedes, as record start writes the
// manifest's extra "warmup": each row's slices of a case (paired), every
// window until steady (a profile that warms each), or a container's first.
func (p Profile) WarmupScope() string {
	switch {
	case p.Paired:
		return "case"
	case p.WarmEach:
		return "steady"
	}
	return "container"
}

// Words is the table in one line for the summary header.
func (p Profile) Words() string {
	yes := func(v bool, y, n string) string {
		if v {
			return y
		}
		return n
	}
	lead := ""
	if p.LeadInS > 0 {
		lead = fmt.Sprintf(", a capacity step's window after a %d s lead-in at its rate", p.LeadInS)
	}
	return fmt.Sprintf("quiet gate %d s under the host's load threshold within %d s (%s), up to %d run(s) measured again%s, requests time out after %d s, warm-up in %d s slices up to %d s, the cgroup sampler at most %d samples a window and no closer than %d ms%s%s",
		p.QuietForS, p.QuietTimeoutS, yes(p.QuietRequired, "required", "a warning if not"), p.MaxRedo,
		yes(p.CanaryRedo, " (a slow CPU canary too)", ""), p.RequestTimeoutS, p.WarmupSliceS, p.WarmupMaxS,
		p.SamplerSamples, p.SamplerMinMs, yes(p.SamplerCheck, ", its own cost measured", ""), lead)
}
