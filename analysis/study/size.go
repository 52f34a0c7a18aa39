package study

import "fmt"

// Size is a size study's [size] table: what each stack costs to write,
// depend on and build, not how fast it answers. Its rows are stacks (no
// variants: a variant is the same image), measured by scripts/lib/
// bench-size.sh and read by analysis/sizes.
type Size struct {
	// Runs is the number of clean builds (and rebuilds) per profile.
	QuickRuns, FullRuns int
	// Build says whether images are built and measured; false measures
	// the code and the lock data only (no Docker, a few seconds).
	Build bool
}

// RunsFor is the build runs of a bench profile.
func (z *Size) RunsFor(profile string) int {
	if profile == "full" {
		return z.FullRuns
	}
	return z.QuickRuns
}

type sizeShape struct {
	QuickRuns *int  `toml:"quick_runs"`
	FullRuns  *int  `toml:"full_runs"`
	Build     *bool `toml:"build"`
}

// parseSize finishes a study with a [size] table: it may name its stacks
// and describe itself, and nothing a load study has.
func parseSize(s *Study, path string, f *fileShape) (*Study, error) {
	switch {
	case len(f.Include) > 0:
		return nil, &Error{Path: path, Key: "include", Msg: "a size study includes no other study"}
	case len(f.Cases) > 0:
		return nil, &Error{Path: path, Key: "case", Msg: "a size study has no [[case]]: [size] says what it measures"}
	case len(f.Variants) > 0:
		return nil, &Error{Path: path, Key: "variant", Msg: "a size study has no [[variant]]: a variant is the same image"}
	case f.Connections != nil || f.Errors != "" || f.SamplerCheck != "":
		return nil, &Error{Path: path, Msg: "a size study sends no load: connections, errors and sampler_check do not apply"}
	}
	z := &Size{QuickRuns: 1, FullRuns: 3, Build: true}
	for _, r := range []struct {
		key string
		v   *int
		to  *int
	}{{"size.quick_runs", f.Size.QuickRuns, &z.QuickRuns}, {"size.full_runs", f.Size.FullRuns, &z.FullRuns}} {
		if r.v == nil {
			continue
		}
		if *r.v < 1 || *r.v > 20 {
			return nil, &Error{Path: path, Key: r.key, Msg: fmt.Sprintf("want a whole number from 1 to 20 (got %d)", *r.v)}
		}
		*r.to = *r.v
	}
	if f.Size.Build != nil {
		z.Build = *f.Size.Build
	}
	s.Size = z
	seen := map[string]bool{}
	for _, r := range s.Stacks {
		switch {
		case seen[r]:
			return nil, &Error{Path: path, Key: "stacks", Msg: fmt.Sprintf("%q is listed twice", r)}
		case !stackRe.MatchString(r):
			return nil, &Error{Path: path, Key: "stacks", Msg: fmt.Sprintf("%q is not a stack name", r)}
		}
		seen[r] = true
	}
	return s, nil
}
