package main

import (
	"fmt"
	"sort"
	"strings"
)

// Build describes one SQLite library.
type Build struct {
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	Options    []string `json:"compile_options"`
	MemStatus  *bool    `json:"memstatus"` // nil: could not be asked
	ThreadSafe int      `json:"threadsafe"`
}

// Finding is one property of a build that matters under concurrency.
type Finding struct {
	Serialises bool   // true: threads queue on it
	Text       string // what it is and what it does
}

// Judge lists what the build's options and runtime settings mean for
// several threads sharing one process.
func (b Build) Judge() []Finding {
	opts := map[string]string{}
	for _, o := range b.Options {
		k, v, _ := strings.Cut(o, "=")
		opts[k] = v
	}
	var out []Finding
	switch {
	case b.MemStatus != nil && *b.MemStatus:
		out = append(out, Finding{true, "memory statistics ON: every allocation and free takes one process-wide mutex (SQLITE_DEFAULT_MEMSTATUS=0 or sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) turns it off)"})
	case b.MemStatus != nil:
		out = append(out, Finding{false, "memory statistics off: allocations take no global mutex"})
	case opts["DEFAULT_MEMSTATUS"] == "0":
		out = append(out, Finding{false, "memory statistics off by default (DEFAULT_MEMSTATUS=0)"})
	default:
		out = append(out, Finding{true, "memory statistics on by default (no DEFAULT_MEMSTATUS=0): every allocation takes one process-wide mutex unless the program turns it off"})
	}
	if _, ok := opts["OMIT_LOOKASIDE"]; ok {
		out = append(out, Finding{true, "OMIT_LOOKASIDE: no per-connection lookaside memory, every small allocation goes to malloc (and through the memstatus mutex when that is on)"})
	}
	ts := opts["THREADSAFE"]
	if b.ThreadSafe >= 0 {
		ts = fmt.Sprint(b.ThreadSafe)
	}
	switch ts {
	case "0":
		out = append(out, Finding{false, "THREADSAFE=0: no mutexes at all; unsafe if two threads ever use SQLite"})
	case "1":
		out = append(out, Finding{false, "THREADSAFE=1 (serialized): each connection has its own mutex; harmless when each connection serves one thread at a time, as a pool does"})
	case "2":
		out = append(out, Finding{false, "THREADSAFE=2 (multi-thread): no per-connection mutex; a connection must never be shared between threads"})
	}
	if v, ok := opts["DEFAULT_WAL_SYNCHRONOUS"]; ok {
		mode := map[string]string{"0": "OFF", "1": "NORMAL", "2": "FULL", "3": "EXTRA"}[v]
		out = append(out, Finding{false, fmt.Sprintf("DEFAULT_WAL_SYNCHRONOUS=%s: a WAL database opens at synchronous %s unless a pragma says otherwise", v, mode)})
	}
	return out
}

// ParseOptions reads `PRAGMA compile_options` output, one option a line.
func ParseOptions(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}
