// Package envfile reads the lab's KEY=VALUE files (stacks/*/stack.env,
// hosts/*.env) as bash reads them when the bench sources them, for the
// forms those files use: a bare word, a "double-quoted" or 'single-quoted'
// value, and a # comment after it or on a line of its own. A value bash
// would expand ($VAR, $(…)) or a line that is not an assignment is an
// error, so what Go records is what bash ran.
package envfile

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

var key = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Read parses the file at path; an error names the file and line.
func Read(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		k, v, ok, err := Line(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if ok {
			out[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}

// Line parses one line: ok is false for a blank line or a comment.
func Line(line string) (k, v string, ok bool, err error) {
	l := strings.TrimSpace(line)
	if l == "" || strings.HasPrefix(l, "#") {
		return "", "", false, nil
	}
	k, rest, found := strings.Cut(l, "=")
	if !found || !key.MatchString(k) {
		return "", "", false, fmt.Errorf("not KEY=VALUE: %q", l)
	}
	var b strings.Builder
	i := 0
	for i < len(rest) {
		c := rest[i]
		switch {
		case c == ' ' || c == '\t':
			tail := strings.TrimSpace(rest[i:])
			if tail != "" && !strings.HasPrefix(tail, "#") {
				return "", "", false, fmt.Errorf("%s: more than one word after = (quote the value)", k)
			}
			return k, b.String(), true, nil
		case c == '"' || c == '\'':
			j := strings.IndexByte(rest[i+1:], c)
			if j < 0 {
				return "", "", false, fmt.Errorf("%s: unterminated %c quote", k, c)
			}
			part := rest[i+1 : i+1+j]
			if c == '"' && strings.ContainsAny(part, "$`\\") {
				return "", "", false, fmt.Errorf("%s: %q would be expanded by bash; the lab reads values as they are written", k, part)
			}
			b.WriteString(part)
			i += j + 2
		case c == '$' || c == '`' || c == '\\':
			return "", "", false, fmt.Errorf("%s: %q would be expanded by bash; the lab reads values as they are written", k, rest)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return k, b.String(), true, nil
}
