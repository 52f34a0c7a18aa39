package linediff

import "testing"

func TestFirst(t *testing.T) {
	for _, c := range []struct {
		a, b string
		line int
		x, y string
		ok   bool
	}{
		{"a\nb\n", "a\nb\n", 0, "", "", false},
		{"a\nb\n", "a\nc\n", 2, "b", "c", true},
		{"a\n", "a\n\n", 3, "", "", true},
		{"", "x", 1, "", "x", true},
	} {
		line, x, y, ok := First(c.a, c.b)
		if line != c.line || x != c.x || y != c.y || ok != c.ok {
			t.Errorf("First(%q, %q) = %d %q %q %v, want %d %q %q %v", c.a, c.b, line, x, y, ok, c.line, c.x, c.y, c.ok)
		}
	}
}
