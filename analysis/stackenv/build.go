package stackenv

import (
	"slices"
	"strings"
)

// BuildEnv is the environment the stack name's build-image runs under, as
// env's arguments: "-u K" for each name its BUILD_ARGS declares (so the
// caller's own CGO_CFLAGS, say, never reaches an image), a build variant's
// "K=V" lines (blank ones left out), then BASE_IMAGE: base's tag when its
// DEPENDS names base (the one given, else the lab's tag for base), else
// empty. Bash asks `stack build-env NAME` and runs env with the answer.
func (l Lab) BuildEnv(name string, buildArgs []string, base string) ([]string, error) {
	s, err := l.Read(name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, k := range s.Words("BUILD_ARGS") {
		out = append(out, "-u", k)
	}
	for _, kv := range buildArgs {
		if kv != "" {
			out = append(out, kv)
		}
	}
	if !slices.Contains(s.Words("DEPENDS"), "base") {
		base = ""
	} else if base == "" {
		if base, err = l.Tag("base", nil); err != nil {
			return nil, err
		}
	}
	return append(out, "BASE_IMAGE="+base), nil
}

// Build is what scripts/images needs to build a stack's image, or to
// leave it alone.
type Build struct {
	Elsewhere bool   // the stack runs its IMAGE, built elsewhere (Tag): nothing to build
	Problem   string // why the build variant's arguments cannot build it (nothing else set)
	Tag       string // the image's tag
	Args      string // the variant's arguments for the notes: " with K=V K=V", else ""
	Log       string // the build log's file name: NAME.build.log, a variant's NAME-HASH.build.log
}

// BuildPlan is how the stack name's image is built with a build variant's
// arguments (buildArgs: its "K=V" lines, "" for none): a stack with an
// IMAGE of its own is not, and arguments its BUILD_ARGS does not declare
// are refused before its tag is made.
func (l Lab) BuildPlan(name, buildArgs string) (Build, error) {
	s, err := l.Read(name)
	if err != nil {
		return Build{}, err
	}
	if tag := s.OwnImage(); tag != "" {
		return Build{Elsewhere: true, Tag: tag}, nil
	}
	lines := strings.Split(buildArgs, "\n")
	if p := s.BuildArgsProblem(lines); p != "" {
		return Build{Problem: p}, nil
	}
	b := Build{Log: name + ".build.log"}
	if b.Tag, err = l.Tag(name, lines); err != nil {
		return Build{}, err
	}
	if buildArgs != "" {
		// a variant's log beside the stack's own, named by its tag's hash
		b.Args = " with " + strings.TrimRight(strings.ReplaceAll(buildArgs, "\n", " "), " ")
		b.Log = name + "-" + b.Tag[strings.LastIndex(b.Tag, ":")+1:] + ".build.log"
	}
	return b, nil
}
