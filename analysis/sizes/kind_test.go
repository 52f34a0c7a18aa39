package sizes

import "testing"

// A stack's build scripts count as build, not as its app's code, whatever
// language scc takes an extensionless file for.
func TestKindOfBuildScripts(t *testing.T) {
	for _, rel := range []string{"build-image", "native-build", "native-start", "sub/native-start"} {
		for _, lang := range []string{"", "Python", "BASH"} {
			if got := KindOf(lang, rel); got != "build" {
				t.Errorf("KindOf(%q, %q) = %q, want build", lang, rel, got)
			}
		}
	}
}
