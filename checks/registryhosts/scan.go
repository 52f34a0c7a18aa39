package main

import (
	"bytes"
	"sort"
	"strings"
)

// A finding is one line of a file that names a registry host.
type finding struct {
	path string
	line int
	host host
}

// nameByte reports whether b can be part of a host name. A host matches
// only where the bytes around it cannot extend it into a longer name.
func nameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-'
}

// wholeHostAt reports whether the occurrence of a host name of length n at
// text[i:] is the whole host: not a label of a longer name before it (a
// letter, digit, hyphen or dot) nor after it (a letter, digit or hyphen, or
// a dot that starts another label). "proxy.example.org" is named in
// "https://proxy.example.org/x" and "proxy.example.org." but not in
// "myproxy.example.org", "a.proxy.example.org" or "proxy.example.org-index".
func wholeHostAt(text []byte, i, n int) bool {
	if i > 0 && (nameByte(text[i-1]) || text[i-1] == '.') {
		return false
	}
	j := i + n
	if j < len(text) {
		if nameByte(text[j]) {
			return false
		}
		if text[j] == '.' && j+1 < len(text) && nameByte(text[j+1]) {
			return false
		}
	}
	return true
}

// scanText returns the lines of text (1-based) that name each host, in
// line order; a line naming two hosts gives two findings.
func scanText(path string, text []byte, hosts []host) []finding {
	lower := bytes.ToLower(text)
	var out []finding
	for _, h := range hosts {
		name := []byte(strings.ToLower(h.name))
		for off := 0; ; {
			k := bytes.Index(lower[off:], name)
			if k < 0 {
				break
			}
			i := off + k
			if wholeHostAt(lower, i, len(name)) {
				out = append(out, finding{path: path, line: 1 + bytes.Count(text[:i], []byte("\n")), host: h})
			}
			off = i + len(name)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].line < out[b].line })
	return dedupe(out)
}

// dedupe drops repeats of one host on one line (a URL named twice).
func dedupe(fs []finding) []finding {
	type key struct {
		line int
		name string
	}
	seen := map[key]bool{}
	var out []finding
	for _, f := range fs {
		k := key{f.line, f.host.name}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// binary reports whether data looks like a binary file (a NUL byte early on).
func binary(data []byte) bool {
	if len(data) > 8000 {
		data = data[:8000]
	}
	return bytes.IndexByte(data, 0) >= 0
}
