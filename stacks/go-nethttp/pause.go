package main

import (
	"net/http"
	"time"
)

// The lab's self-test must also see the lab name a stop-the-world pause:
// SELFTEST_PAUSE_MS and SELFTEST_PAUSE_EVERY_MS (together; e.g. 300 and
// 2000) plant one. Pauses begin at whole multiples of the period after
// the app starts (the first one period in, so boot is not delayed), and a
// request that arrives during [k·period, k·period+length) waits until
// k·period+length before it is served, as every request waits out a
// collector's stop-the-world. Requests already being served are not
// stopped. Unset or 0: no wrapper at all.

// pauseLeft is how long a request arriving at since (from start) waits:
// the rest of the pause it falls in, or 0 between pauses.
func pauseLeft(since, length, every time.Duration) time.Duration {
	if since < every {
		return 0
	}
	if phase := since % every; phase < length {
		return length - phase
	}
	return 0
}

// pausing wraps h so requests arriving during a pause wait for its end;
// pauses count from start. A zero length or period returns h itself.
func pausing(h http.Handler, length, every time.Duration, start time.Time) http.Handler {
	if length <= 0 || every <= 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d := pauseLeft(time.Since(start), length, every); d > 0 {
			time.Sleep(d)
		}
		h.ServeHTTP(w, r)
	})
}
