package stackenv

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A Debian package pinned in a Dockerfile: name=version, the version
// starting with a digit (an epoch "2:" included), ended by white space or
// the line's backslash.
var dockerfilePin = regexp.MustCompile(`(?:^|\s)([a-z0-9][a-z0-9.+-]+)=([0-9][^\s\\]*)`)

// HostPackages is what the stack's native build needs from Debian on the
// host (NATIVE_PACKAGES), each "name=version" at the version its
// Dockerfile pins for its image, so that the host builds against what the
// image holds: the one place a native build's packages and their versions
// are decided (scripts/native-stack installs them). A package the
// Dockerfile does not pin, or pins twice at two versions, is refused in
// one line naming both files. The Dockerfile is the stack's, else the
// one of the stack it SHARES.
func (s *Stack) HostPackages() ([]string, error) {
	want := s.Words("NATIVE_PACKAGES")
	if len(want) == 0 {
		return nil, nil
	}
	// shown as the stack.env is: relative to the lab's root when inside it
	file, shown := filepath.Join(s.Dir, "Dockerfile"), filepath.Join(filepath.Dir(s.File), "Dockerfile")
	text, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) && s.SharedDir() != "" {
		file = filepath.Join(s.SharedDir(), "Dockerfile")
		shown = filepath.Join(filepath.Dir(filepath.Dir(s.File)), s.Values["SHARES"], "Dockerfile")
		text, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, bad("%s: NATIVE_PACKAGES needs the stack's Dockerfile for their versions: %v", s.File, err)
	}
	pins, err := DockerfilePins(string(text))
	if err != nil {
		return nil, bad("%s: %v", shown, err)
	}
	out := make([]string, 0, len(want))
	for _, p := range want {
		v, ok := pins[p]
		if !ok {
			return nil, bad("%s: NATIVE_PACKAGES names %s, which %s does not pin (name=version)", s.File, p, shown)
		}
		out = append(out, p+"="+v)
	}
	return out, nil
}

// DockerfilePins are the Debian packages a Dockerfile installs at a stated
// version (name=version), by name; one pinned at two versions is an error.
func DockerfilePins(text string) (map[string]string, error) {
	pins := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) > 0 && (strings.HasPrefix(f[0], "#") || f[0] == "ENV" || f[0] == "ARG" || f[0] == "LABEL") {
			continue
		}
		for _, m := range dockerfilePin.FindAllStringSubmatch(line, -1) {
			if old, ok := pins[m[1]]; ok && old != m[2] {
				return nil, bad("%s is pinned at %s and at %s", m[1], old, m[2])
			}
			pins[m[1]] = m[2]
		}
	}
	return pins, nil
}
