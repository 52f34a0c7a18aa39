// Package pauses owns `<window>.pauses.jsonl`: the pauses an app's runtime
// reported during a window, on the wall clock, so the summary can say an
// app stall was (or was not) its collector, and how much its JIT compiled
// meanwhile (a JIT still compiling is an app not yet at its warm speed).
// It reads three runtimes' words, from the container's log for the window
// as `docker logs --timestamps` gives it: the JVM's unified log of GC
// pauses and JIT compilations with UTC time stamps
// (`-Xlog:gc,jit+compilation=debug:stdout:utctime`, as
// stacks/java-spring/run starts the JVM), Go's GODEBUG=gctrace=1 (as
// stacks/go-nethttp's stack.env sets it), whose lines carry no wall time
// of their own, and the lines the Ruby stacks print from the interpreter's
// GC counters (stacks/ruby-rails/config/initializers/gc_log.rb). Every
// other line is ignored, so an app's own log lines never reach the raw
// folder.
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
	Runtime string `json:"runtime"` // "jvm", "go", "ruby"
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

// dockerStamp is the time `docker logs --timestamps` puts before each
// line (when the engine read it from the container), RFC 3339 in UTC.
var dockerStamp = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) `)

// goGC matches a line of Go's GODEBUG=gctrace=1 (runtime/mgc.go), its
// collection's number and its wall-clock phases in ms: the stop of sweep
// termination, the concurrent mark, the stop of mark termination:
// gc 12 @3.456s 2%: 0.011+1.2+0.003 ms clock, 0.022+0.3/0.9/0.1+0.006 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 1 P
var goGC = regexp.MustCompile(`^gc (\d+) @[0-9.]+s \d+%: ([0-9.]+)\+([0-9.]+)\+([0-9.]+) ms clock`)

// ParseGo reads a container's log as `docker logs --timestamps` gives it
// and returns the two stops of each of Go's collections that gctrace
// reported. Go prints the line as the collection ends (after its mark
// termination), with offsets from the program's start only, so the
// engine's stamp of the line is taken as that end: the mark termination
// stop ends there, and the sweep termination stop ends where the
// concurrent mark began. The concurrent mark itself stops nothing and is
// not a pause. Lines without a stamp, and every other line, are ignored.
func ParseGo(r io.Reader) ([]Pause, error) {
	var out []Pause
	err := eachStamped(r, goGC, func(end time.Time, m []string) {
		var ms [3]float64
		var err error
		for i := range ms {
			if ms[i], err = strconv.ParseFloat(m[2+i], 64); err != nil {
				return
			}
		}
		nsOf := func(v float64) int64 { return int64(v * 1e6) }
		markEnd := end.UnixNano() - nsOf(ms[2])
		out = append(out,
			Pause{AtUnixNs: markEnd - nsOf(ms[1]) - nsOf(ms[0]), Ms: ms[0], What: "GC(" + m[1] + ") sweep termination"},
			Pause{AtUnixNs: markEnd, Ms: ms[2], What: "GC(" + m[1] + ") mark termination"})
	})
	return out, err
}

// rubyGC matches a line of the Ruby stacks' GC log: the process, GC.count
// after the collections since the last line, the minor and major counts,
// and the collector's time since the last line in ms:
// lab-gc pid=1 count=57 minor=50 major=7 ms=12.345
var rubyGC = regexp.MustCompile(`^lab-gc pid=(\d+) count=(\d+) minor=(\d+) major=(\d+) ms=([0-9.]+)$`)

// ParseRuby reads a container's log as `docker logs --timestamps` gives it
// and returns one pause per line of the Ruby stacks' GC log: the time the
// collector took since the process's previous line, ending at the engine's
// stamp of the line. Ruby prints no line of its own; a thread that polls
// its counters does (gc_log.rb), so a line may come a poll or more after
// its collections, and one line can sum several (minor ones between two
// looks). Ruby times its collector on the process's CPU clock: with the
// interpreter's lock held through a collection, that is its wall time on
// an app that is not short of CPU. Every other line is ignored.
func ParseRuby(r io.Reader) ([]Pause, error) {
	var out []Pause
	prev := map[string][3]int64{} // pid: count, minor, major at its last line
	err := eachStamped(r, rubyGC, func(end time.Time, m []string) {
		ms, err := strconv.ParseFloat(m[5], 64)
		if err != nil {
			return
		}
		var now [3]int64
		for i := range now {
			if now[i], err = strconv.ParseInt(m[2+i], 10, 64); err != nil {
				return
			}
		}
		what := fmt.Sprintf("GC(%d)", now[0])
		p, seen := prev[m[1]]
		if seen && now[0]-p[0] > 1 {
			what = fmt.Sprintf("GC(%d-%d)", p[0]+1, now[0])
		}
		if seen && now[2] > p[2] {
			what += " major"
		} else if seen {
			what += " minor"
		}
		prev[m[1]] = now
		out = append(out, Pause{AtUnixNs: end.UnixNano() - int64(ms*1e6), Ms: ms, What: what})
	})
	return out, err
}

// eachStamped calls f with the engine's stamp and re's submatches for
// every line of r (as `docker logs --timestamps` gives it) whose text
// after the stamp re matches; other lines, and lines without a stamp,
// are skipped.
func eachStamped(r io.Reader, re *regexp.Regexp, f func(at time.Time, m []string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		st := dockerStamp.FindStringSubmatch(line)
		if st == nil {
			continue
		}
		m := re.FindStringSubmatch(line[len(st[0]):])
		if m == nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, st[1])
		if err != nil {
			continue
		}
		f(at, m)
	}
	return sc.Err()
}

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
		if st := dockerStamp.FindString(line); st != "" {
			line = line[len(st):] // the JVM stamps its own lines
		}
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
