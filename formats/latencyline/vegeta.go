package latencyline

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"stacklab/formats/lineerr"
	"strconv"
	"strings"
	"time"
)

// vegetaColumns is the width of a row of `vegeta encode -to csv`
// (vegeta 12.13): timestamp (unix ns, when the request was sent), code,
// latency (ns), bytes_out, bytes_in, error, body (base64), attack, seq,
// method, url, headers (base64). There is no header row.
const vegetaColumns = 12

// ReadVegetaCSV reads one lane of a capacity step: the CSV of
// `vegeta encode -to csv`, one row per request, errors included. It
// returns the requests on a clock that starts at the earliest send, and
// that send's time. name is the file name used in errors (*LineError).
//
// A row is an error (no HTTP answer) when its code is 0, or when its
// error column says something other than the status: vegeta also fills
// the error column of every answer outside 2xx-3xx with the status line
// ("500 Internal Server Error"), and a 500 is an answer. An empty input
// is an error: vegeta writes a row for every request it sent.
//
// The body is part of every row: the bench should attack with -max-body 0
// or a pages step's CSV holds every page it was sent.
func ReadVegetaCSV(r io.Reader, name string) ([]Request, time.Time, error) {
	tail := &lastByte{r: r}
	cr := csv.NewReader(tail)
	cr.FieldsPerRecord = -1 // counted below, to name the line in our words
	cr.ReuseRecord = true
	type row struct {
		ts  int64
		req Request
	}
	var rows []row
	fail := func(line int, err error) ([]Request, time.Time, error) {
		le := &LineError{File: name, Line: line, Err: err}
		// Cut off mid-write: the bad row is the last and has no newline.
		if _, next := cr.Read(); next == io.EOF && tail.last != '\n' {
			le.Truncated = lineerr.LastLine
		}
		return nil, time.Time{}, le
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return fail(pe.StartLine, pe.Err)
			}
			return nil, time.Time{}, fmt.Errorf("%s: %v", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != vegetaColumns {
			return fail(line, fmt.Errorf("%d columns, want %d (vegeta 12.13 encode -to csv)", len(rec), vegetaColumns))
		}
		ts, req, err := vegetaRow(rec)
		if err != nil {
			return fail(line, err)
		}
		rows = append(rows, row{ts, req})
	}
	if len(rows) == 0 {
		return nil, time.Time{}, &LineError{File: name, Line: 1, Err: errors.New("empty file: no request rows")}
	}
	t0 := slices.MinFunc(rows, func(a, b row) int { return cmp.Compare(a.ts, b.ts) }).ts
	out := make([]Request, len(rows))
	for i, rw := range rows {
		rq := rw.req
		rq.StartNs += rw.ts - t0
		rq.EndNs += rw.ts - t0
		out[i] = rq
	}
	return out, time.Unix(0, t0).UTC(), nil
}

// vegetaRow reads one row: its absolute send time, and the request with
// times counted from that send.
func vegetaRow(rec []string) (int64, Request, error) {
	ts, err := strconv.ParseInt(rec[0], 10, 64)
	if err != nil || ts <= 0 {
		return 0, Request{}, fmt.Errorf("timestamp %q is not unix nanoseconds", rec[0])
	}
	code, err := strconv.Atoi(rec[1])
	if err != nil || code != 0 && (code < 100 || code > 599) {
		return 0, Request{}, fmt.Errorf("code %q is not an HTTP status or 0", rec[1])
	}
	lat, err := strconv.ParseInt(rec[2], 10, 64)
	if err != nil || lat < 0 {
		return 0, Request{}, fmt.Errorf("latency %q is not nanoseconds", rec[2])
	}
	msg := rec[5]
	noAnswer := code == 0 || msg != "" && !strings.HasPrefix(msg, rec[1]+" ")
	r := Request{StartNs: 0, EndNs: lat, Status: code, Err: noAnswer}
	if noAnswer {
		r.Status = 0
	}
	return ts, r, nil
}

// lastByte remembers the last byte read, to tell a row cut off mid-write.
type lastByte struct {
	r    io.Reader
	last byte
}

func (l *lastByte) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.last = p[n-1]
	}
	return n, err
}

// Lane is one generator process's requests on its own clock.
type Lane struct {
	Requests []Request
	Start    time.Time
}

// Merge puts the lanes of one step (several vegeta processes, one CSV
// each) on one clock, from the earliest lane's start, and returns them
// in order of start (then end), with that start.
func Merge(lanes ...Lane) ([]Request, time.Time) {
	if len(lanes) == 0 {
		return nil, time.Time{}
	}
	t0 := lanes[0].Start
	for _, l := range lanes[1:] {
		if l.Start.Before(t0) {
			t0 = l.Start
		}
	}
	var out []Request
	for _, l := range lanes {
		shift := l.Start.Sub(t0).Nanoseconds()
		for _, r := range l.Requests {
			r.StartNs += shift
			r.EndNs += shift
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b Request) int {
		return cmp.Or(cmp.Compare(a.StartNs, b.StartNs), cmp.Compare(a.EndNs, b.EndNs))
	})
	return out, t0
}
