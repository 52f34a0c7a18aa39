package summary

import (
	"fmt"
	"sort"
	"strings"

	"stacklab/formats/pglog"
)

// CauseServer: a [pg] row's tail while its backends on the lab's Postgres
// were waiting on the server (a lock, the WAL, I/O), as the server's own
// samples (<case>.pg.jsonl, bench/pgsample) show.
const CauseServer = "server waits"

// serverShare: the share of the active backends' samples in one wait that
// names the server as the cause of a tail.
const serverShare = 0.5

// serverWords is what the server's samples show over sp (the samples in
// it, with one either side): how many backends were active, what they
// waited on most, checkpoints; and whether a wait of the server's own
// (not CPU, not the client) held most of them, a backend or more at
// every sample on average. "" without samples.
func serverWords(samples []pglog.Sample, sp span) (string, bool) {
	if len(samples) == 0 {
		return "", false
	}
	lo, hi := 0, len(samples)-1
	for i, s := range samples {
		if s.AtUnixNs <= sp.from {
			lo = i
		}
	}
	for i := len(samples) - 1; i >= 0; i-- {
		if samples[i].AtUnixNs >= sp.to {
			hi = i
		}
	}
	if hi < lo {
		hi = lo
	}
	in := samples[lo : hi+1]
	w := pglog.Summarise(in)
	if len(in) == 1 {
		w = pglog.Summarise([]pglog.Sample{in[0], in[0]})
		w.Samples = 1
	}
	var parts []string
	if w.MaxActive == 0 {
		parts = append(parts, "no backend active")
	} else {
		parts = append(parts, fmt.Sprintf("up to %d backend(s) active", w.MaxActive))
	}
	keys := make([]string, 0, len(w.WaitShare))
	for k := range w.WaitShare {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if w.WaitShare[keys[i]] != w.WaitShare[keys[j]] {
			return w.WaitShare[keys[i]] > w.WaitShare[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var waits []string
	for i, k := range keys {
		if i == 3 {
			break
		}
		waits = append(waits, fmt.Sprintf("%s %.0f%%", k, 100*w.WaitShare[k]))
	}
	if len(waits) > 0 {
		parts = append(parts, "their samples on "+strings.Join(waits, ", "))
	} else if w.MaxActive > 0 {
		parts = append(parts, "none seen waiting")
	}
	if w.Checkpoints > 0 {
		parts = append(parts, fmt.Sprintf("%d checkpoint(s) wrote %d buffers", w.Checkpoints, w.BuffersCheckpoint))
	}
	// The server held the stretch when its top wait (not the client's)
	// took most of the active backends' samples and, on average, at least
	// one backend sat in it at every sample: a wait seen now and then
	// beside an app that kept its requests to itself explains nothing.
	waiting := 0
	for _, x := range in {
		waiting += x.Waits[w.TopWait]
	}
	held := w.TopWait != "" && !strings.HasPrefix(w.TopWait, "Client:") && w.WaitShare[w.TopWait] >= serverShare &&
		float64(waiting) >= float64(len(in))
	return fmt.Sprintf("Postgres over that stretch (%d samples): %s", len(in), strings.Join(parts, "; ")), held
}
