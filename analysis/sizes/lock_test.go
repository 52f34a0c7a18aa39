package sizes

import (
	"os"
	"testing"
)

// The lock data committed in stacks/: each ecosystem's parser against
// the real file, counts checked against the file by other means (README).
func TestParseLockOnTheStacks(t *testing.T) {
	for _, c := range []struct {
		eco, file string
		want      int
	}{
		{"cargo", "../../stacks/rust-axum/Cargo.lock", 141},
		{"npm", "../../stacks/node-fastify/package-lock.json", 90},
		{"pip", "../../stacks/python-fastapi/requirements.txt", 29},
		{"gem", "../../stacks/ruby-rails/Gemfile.lock", 52},
		{"maven", "../../stacks/java-spring/dependency-tree.txt", 57},
		{"debian", "../../stacks/c-libmicrohttpd/packages.txt", 105},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		pk, err := ParseLock(c.eco, b)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		t.Logf("%s %s: %d packages, first %v", c.eco, c.file, len(pk), pk[0])
		if c.want >= 0 && len(pk) != c.want {
			t.Errorf("%s: %d packages, want %d", c.file, len(pk), c.want)
		}
	}
}
