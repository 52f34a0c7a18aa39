package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Against a server that answers in about 2 ms, four connections count
// about four answers per 2 ms either way, the two counts within a request
// a connection of each other, no error; a 500 is counted apart.
func TestRunCountsTheWindowBothWays(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "" {
			t.Errorf("the client asked for %q: it asks for no compression", r.Header.Get("Accept-Encoding"))
		}
		time.Sleep(2 * time.Millisecond)
		if r.URL.Path == "/fail" {
			w.WriteHeader(500)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	r := Run(srv.URL+"/up", 4, 50*time.Millisecond, 400*time.Millisecond, nil)
	if r.Ended < 100 || r.Errors != 0 || r.Non2xx != 0 {
		t.Fatalf("%+v: want hundreds of answers, no error", r)
	}
	if d := r.Ended - r.Started; d > 4 || d < -4 {
		t.Errorf("ended %d and started %d differ by more than one request a connection", r.Ended, r.Started)
	}
	if r.P50Ms < 2 || r.P99Ms < r.P50Ms {
		t.Errorf("p50 %v ms, p99 %v ms: want at least the server's 2 ms, p99 ≥ p50", r.P50Ms, r.P99Ms)
	}
	f := Run(srv.URL+"/fail", 2, 0, 100*time.Millisecond, nil)
	if f.Ended != 0 || f.Non2xx == 0 {
		t.Errorf("%+v: a 500 counted as an answer", f)
	}
	if !strings.HasPrefix(Verdict(r), "closedloop: ") {
		t.Errorf("verdict %q", Verdict(r))
	}
}

// Bad flags are one sentence naming the flag.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		url, want string
		conns     int
		window    time.Duration
		hs        []string
	}{
		{"http://10.0.0.1:80/up", "--url", 1, time.Second, nil},
		{"http://127.0.0.1:80/up", "--connections", 0, time.Second, nil},
		{"http://127.0.0.1:80/up", "--duration", 1, 0, nil},
		{"http://127.0.0.1:80/up", "--header", 1, time.Second, []string{"nocolon"}},
	} {
		if got := check(c.url, c.conns, 0, c.window, c.hs); !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v: %q, want it to start with %s", c, got, c.want)
		}
	}
	if got := check("http://127.0.0.1:80/up", 32, time.Second, time.Second, []string{"Accept: */*"}); got != "" {
		t.Errorf("good flags refused: %s", got)
	}
}
