// Package pauses owns `<window>.pauses.jsonl`: the pauses an app's runtime
// reported during a window, on the wall clock, so the summary can say an
// app stall was (or was not) its collector, and how much its JIT compiled
// meanwhile (a JIT still compiling is an app not yet at its warm speed).
// Today it reads one runtime's words: the JVM's unified log of GC pauses
// and JIT compilations with UTC time stamps
// (`-Xlog:gc,jit+compilation=debug:stdout:utctime`, as
// stacks/java-spring/run starts the JVM), taken from the container's log
// for the window. Every other line is ignored, so an app's own log lines
// never reach the raw folder.
package pauses

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Format is the file's format id, on its first line.
const Format = "stacklab-pauses/1"

// Header is the file's first line.
type Header struct {
	Format  string `json:"format"`
	Runtime string `json:"runtime"` // "jvm"
	// JIT is what the JIT compiled in the window; nil when the runtime
	// logged no compilation (its log off, or files from before).
	JIT *JIT `json:"jit,omitempty"`
}

// JIT counts the JIT's log lines of one window.
type JIT struct {
	Compiled int `json:"compiled"` // methods compiled, every tier
	TopTier  int `json:"top_tier"` // of them at the top tier (C2: 4)
	// NotEntrant: compiled code the JVM stopped entering: replaced by the
	// same method at a higher tier (C1's code once C2's is ready), or
	// deoptimized.
	NotEntrant int `json:"made_not_entrant"`
}

// Pause is one stop of the app's threads the runtime reported.
type Pause struct {
	// AtUnixNs is when the pause began: the JVM stamps a GC line when the
	// pause ends, so it is the stamp less the pause.
	AtUnixNs int64   `json:"at_unix_ns"`
	Ms       float64 `json:"ms"`
	What     string  `json:"what"`
}

// EndUnixNs is when the pause ended.
func (p Pause) EndUnixNs() int64 { return p.AtUnixNs + int64(p.Ms*1e6) }

// jvmGC matches a GC pause line of -Xlog:gc with the utctime decoration:
// [2026-12-01T21:59:51.110+0000] GC(0) Pause Young (Allocation Failure) 16M->4M(61M) 25.503ms
var jvmGC = regexp.MustCompile(`^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4})\]\s+(GC\(\d+\) Pause [^0-9]*?)\s+\S+->\S+\s+([0-9.]+)ms\s*$`)

// jvmJIT matches a line of -Xlog:jit+compilation=debug with utctime:
// [2026-12-02T00:26:55.708+0000]   17 %     4       Hot::main @ 4 (35 bytes)
// (the compile id, attribute characters, the tier, the method), or the
// same line ending "made not entrant" when that code is no longer entered.
var jvmJIT = regexp.MustCompile(`^\[\d{4}-\d\d-\d\dT[0-9:.]+[+-]\d{4}\]\s+\d+\s+[%sbn! ]*?([0-4])\s+\S+.*\((?:\d+ bytes|native)\)(\s+made not entrant)?\s*$`)

// TopTier is the JVM's top compilation tier (C2).
const TopTier = "4"

// ParseJVM reads a container's log and returns the JVM's GC pauses in it
// and what its JIT compiled (nil when it logged no compilation).
func ParseJVM(r io.Reader) ([]Pause, *JIT, error) {
	var out []Pause
	var jit *JIT
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if j := jvmJIT.FindStringSubmatch(line); j != nil {
			if jit == nil {
				jit = &JIT{}
			}
			switch {
			case j[2] != "":
				jit.NotEntrant++
			case j[1] == TopTier:
				jit.Compiled++
				jit.TopTier++
			default:
				jit.Compiled++
			}
			continue
		}
		m := jvmGC.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		at, err := time.Parse("2006-01-02T15:04:05.000-0700", m[1])
		if err != nil {
			continue
		}
		ms, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		out = append(out, Pause{AtUnixNs: at.UnixNano() - int64(ms*1e6), Ms: ms, What: strings.TrimSpace(m[2])})
	}
	return out, jit, sc.Err()
}

// Write writes a header (with jit, when the runtime logged it) and the
// pauses as JSON lines.
func Write(w io.Writer, runtime string, jit *JIT, ps []Pause) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(Header{Format: Format, Runtime: runtime, JIT: jit}); err != nil {
		return err
	}
	for _, p := range ps {
		if err := enc.Encode(p); err != nil {
			return err
		}
	}
	return nil
}

// Read reads a pauses file; an error names the file and line.
func Read(path string) (Header, []Pause, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, nil, err
	}
	defer f.Close()
	var h Header
	var out []Pause
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if n == 1 {
			if err := dec.Decode(&h); err != nil || h.Format != Format {
				return h, nil, fmt.Errorf("%s:1: not a %s header", path, Format)
			}
			continue
		}
		var p Pause
		if err := dec.Decode(&p); err != nil {
			return h, nil, fmt.Errorf("%s:%d: corrupt pause line: %v", path, n, err)
		}
		if p.Ms < 0 || p.AtUnixNs <= 0 {
			return h, nil, fmt.Errorf("%s:%d: a pause needs a time and a length of 0 or more", path, n)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return h, nil, fmt.Errorf("%s: %v", path, err)
	}
	if n == 0 {
		return h, nil, errors.New(path + ": empty")
	}
	return h, out, nil
}

// During is the pauses overlapping [from, to) (unix ns).
func During(ps []Pause, from, to int64) []Pause {
	var out []Pause
	for _, p := range ps {
		if p.AtUnixNs < to && p.EndUnixNs() > from {
			out = append(out, p)
		}
	}
	return out
}
