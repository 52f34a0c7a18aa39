package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"stacklab/formats/uplog"
)

// An upstream that answers its lateness as the mock upstream does.
func lateUpstream(t *testing.T, rec *uplog.Recorder) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		from, _ := strconv.ParseInt(r.URL.Query().Get("from_ms"), 10, 64)
		to, _ := strconv.ParseInt(r.URL.Query().Get("to_ms"), 10, 64)
		if r.URL.Path != "/lateness" {
			http.NotFound(w, r)
			return
		}
		rec.Write(w, time.UnixMilli(from), time.UnixMilli(to))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The step's span is asked for and kept as read; a span the upstream
// answered nothing in leaves no file.
func TestRecordUpstreamKeepsTheSpan(t *testing.T) {
	rec := uplog.NewRecorder()
	at := time.Now().Add(-time.Second)
	rec.Add(at, 70*time.Millisecond)
	rec.Add(at.Add(150*time.Millisecond), time.Millisecond)
	srv := lateUpstream(t, rec)
	out := filepath.Join(t.TempDir(), "step-01.upstream.jsonl")
	var stderr bytes.Buffer
	span := func(from, to time.Time) []string {
		return []string{"--url", srv.URL, "--from-ns", strconv.FormatInt(from.UnixNano(), 10), "--to-ns", strconv.FormatInt(to.UnixNano(), 10)}
	}
	if code := upstreamCmd(out, span(at.Add(-time.Second), at.Add(time.Second)), &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	f, err := uplog.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Answers != 2 || f.Header.Late50ms != 1 {
		t.Errorf("kept %+v, want both answers, one 50 ms late", f.Header.Counts)
	}
	none := filepath.Join(t.TempDir(), "none.upstream.jsonl")
	if code := upstreamCmd(none, span(at.Add(-time.Hour), at.Add(-time.Hour+time.Minute)), &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(none); !os.IsNotExist(err) {
		t.Errorf("a span with no answers wrote %s (%v)", none, err)
	}
}

// Bad flags are exit 2, an upstream that cannot say its lateness exit 1,
// each with one line.
func TestRecordUpstreamRefuses(t *testing.T) {
	srv := lateUpstream(t, uplog.NewRecorder())
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}\n")) }))
	defer foreign.Close()
	out := filepath.Join(t.TempDir(), "x.upstream.jsonl")
	now := strconv.FormatInt(time.Now().UnixNano(), 10)
	later := strconv.FormatInt(time.Now().Add(time.Second).UnixNano(), 10)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--from-ns", now, "--to-ns", later}, 2, "--url is required"},
		{[]string{"--url", srv.URL, "--from-ns", later, "--to-ns", now}, 2, "are not a span"},
		{[]string{"--url", srv.URL, "--from-ns", "5", "--to-ns", "6"}, 2, "are not a span"},
		{[]string{"--url", srv.URL, "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"--url", foreign.URL, "--from-ns", now, "--to-ns", later}, 1, `format is ""`},
		{[]string{"--url", srv.URL + "/nope", "--from-ns", now, "--to-ns", later}, 1, "404 Not Found"},
	} {
		var stderr bytes.Buffer
		code := upstreamCmd(out, c.args, &stderr)
		if code != c.code || !strings.HasPrefix(stderr.String(), "record upstream: ") || !strings.Contains(stderr.String(), c.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want %d and one line with %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused record wrote %s", out)
	}
}
