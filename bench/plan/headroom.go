package main

// The generator's headroom, decided here: once a run, before its first
// row, oha drives the mock upstream as a stub (MODE=stub: every request
// answered at once, stacks/upstream/stub.go) standing where an app stands
// (the app's CPUs, address and port) at the bench's default connections,
// for one window after a warm-up. It is what the generator can drive on
// its role's CPUs when the app costs next to nothing, so a row's req/s can
// be read against it (analysis/summary, headroom.go). The raw network
// path check (bench/netpath, an echo in the same place) comes with it.

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"stacklab/analysis/study"
)

// HeadroomPath is what the headroom asks: the stub answers any path, and
// the mock in its usual mode answers this one at once too.
const HeadroomPath = "/delay?ms=0"

// Headroom says whether a study's runs measure the generator's headroom:
// they do when oha drives one of its windows. A capacity ramp is
// vegeta's, open loop, and each of its steps says whether the generator
// held its rate; a size study has no window.
func Headroom(ws []study.Window) bool {
	for _, w := range ws {
		if w.Case.Ramp == nil {
			return true
		}
	}
	return false
}

// headroomArgs prints oha's arguments for the headroom window of the
// study at path, NUL-separated, as plan oha does a window's.
func headroomArgs(path string, args []string, out io.Writer) error {
	fl := flag.NewFlagSet("headroom", flag.ContinueOnError)
	base := fl.String("url", "", "http://127.0.0.1:PORT where the stub stands in for the app")
	conns := fl.Int("connections", defaultConnections, "the host profile's default connections")
	if err := parseFlags("headroom", args, fl); err != nil {
		return err
	}
	if !strings.HasPrefix(*base, "http://127.0.0.1:") {
		return &usageError{fmt.Sprintf("--url %q: the lab targets http://127.0.0.1:PORT only", *base)}
	}
	if *conns < 1 {
		return &usageError{fmt.Sprintf("--connections %d: want 1 or more", *conns)}
	}
	s, err := study.Load(path)
	if err != nil {
		return err
	}
	if !Headroom(s.Windows(*conns)) {
		return &usageError{fmt.Sprintf("%s: no window oha drives, so no headroom to measure", path)}
	}
	for _, a := range []string{"-c", strconv.Itoa(*conns), "-m", "GET", *base + HeadroomPath} {
		fmt.Fprint(out, a+"\x00")
	}
	return nil
}
