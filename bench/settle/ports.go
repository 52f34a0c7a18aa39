package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// The generator's local ports after a capacity step: each step is new
// vegeta processes, and a step the stack or the generator could not keep
// up with opens thousands of connections that stay in TIME_WAIT for 60 s
// when vegeta exits. Seen here: after seven such steps 27,000 of the
// 28,232 local ports were taken, and connect()'s search for a free one
// used 98% of the generator's CPU (system time) in steps the stack would
// have passed, which then read as generator-capped. So before the next
// step the bench waits while more than maxTimeWait sockets are in
// TIME_WAIT, for at most portsMaxWait.
const (
	maxTimeWait  = 8000
	portsMaxWait = 70 * time.Second
	portsEvery   = 2 * time.Second
)

// timeWait is the TIME_WAIT count of /proc/net/sockstat's "TCP:" line
// ("TCP: inuse 5 orphan 0 tw 3 alloc 8 mem 1"); false when it has none.
func timeWait(sockstat string) (int, bool) {
	for line := range strings.SplitSeq(sockstat, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "TCP:" {
			continue
		}
		for i := 1; i+1 < len(f); i++ {
			if f[i] == "tw" {
				n, err := strconv.Atoi(f[i+1])
				return n, err == nil
			}
		}
	}
	return 0, false
}

// waitPorts waits while read says more than maxTimeWait sockets are in
// TIME_WAIT, at most portsMaxWait, saying so once on w when it waits; it
// returns how long it waited.
func waitPorts(read func() (string, error), sleep func(time.Duration), w io.Writer) time.Duration {
	var waited time.Duration
	for waited < portsMaxWait {
		b, err := read()
		if err != nil {
			return waited
		}
		tw, ok := timeWait(b)
		if !ok || tw <= maxTimeWait {
			return waited
		}
		if waited == 0 {
			fmt.Fprintf(w, "bench: waiting for %d sockets in TIME_WAIT to clear (at most %.0f s) before the next step\n", tw, portsMaxWait.Seconds())
		}
		sleep(portsEvery)
		waited += portsEvery
	}
	return waited
}

// ports is `settle ports`: waitPorts on this machine's sockets.
func ports() {
	waitPorts(func() (string, error) {
		b, err := os.ReadFile("/proc/net/sockstat")
		return string(b), err
	}, time.Sleep, os.Stderr)
}
