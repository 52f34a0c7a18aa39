package latencyline

import "time"

// stall blocks the app from From for Len: a request in service then, or
// arriving then, is answered only after it.
type stall struct{ From, Len time.Duration }

// stallEnd is when a request served over [start, start+svc) is answered.
func stallEnd(start, svc int64, stalls []stall) int64 {
	end := start + svc
	for _, s := range stalls {
		from, to := s.From.Nanoseconds(), (s.From + s.Len).Nanoseconds()
		if start < to && end > from {
			end = to + svc
		}
	}
	return end
}

// closedLoop is oha's way: conns connections, each sending its next
// request as soon as the last is answered, for window. Service times are
// svc plus a small deterministic jitter, so buckets have spread.
func closedLoop(conns int, svc, window time.Duration, stalls ...stall) []Request {
	var out []Request
	for c := 0; c < conns; c++ {
		t := int64(c) * 10_000 // connections start 10 µs apart
		for i := 0; t < window.Nanoseconds(); i++ {
			s := svc.Nanoseconds() + int64((c*7+i*13)%11)*20_000
			end := stallEnd(t, s, stalls)
			out = append(out, Request{StartNs: t, EndNs: end, Status: 200})
			t = end + 30_000 // the generator's own turn-around
		}
	}
	return out
}

// openLoop is vegeta's way: one request every 1/rate whatever the
// answers, except during the pauses (the generator sending nothing).
func openLoop(rate float64, svc, window time.Duration, pauses []stall, stalls ...stall) []Request {
	var out []Request
	step := int64(float64(time.Second) / rate)
	for t := int64(0); t < window.Nanoseconds(); t += step {
		paused := false
		for _, p := range pauses {
			paused = paused || t >= p.From.Nanoseconds() && t < (p.From+p.Len).Nanoseconds()
		}
		if paused {
			continue
		}
		out = append(out, Request{StartNs: t, EndNs: stallEnd(t, svc.Nanoseconds(), stalls), Status: 200})
	}
	return out
}
