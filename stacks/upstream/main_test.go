package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder stands in for time.Sleep so the tests check the delay asked for
// without waiting for it.
type recorder struct {
	mu    sync.Mutex
	slept []time.Duration
}

func (r *recorder) sleep(d time.Duration) {
	r.mu.Lock()
	r.slept = append(r.slept, d)
	r.mu.Unlock()
}

func get(t *testing.T, h http.Handler, method, target string) (*http.Response, string) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	res := w.Result()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestDelaySleepsAsAsked(t *testing.T) {
	cases := []struct {
		target string
		want   time.Duration
	}{
		{"/delay", 100 * time.Millisecond},
		{"/delay?ms=100", 100 * time.Millisecond},
		{"/delay?ms=0", 0},
		{"/delay?ms=10000", 10 * time.Second},
		{"/delay?ms=7&other=1", 7 * time.Millisecond},
	}
	for _, c := range cases {
		rec := &recorder{}
		res, body := get(t, newHandler(rec.sleep), "GET", c.target)
		if res.StatusCode != 200 || body != `{"ok":true}` {
			t.Errorf("%s: got %d %q, want 200 {\"ok\":true}", c.target, res.StatusCode, body)
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", c.target, ct)
		}
		if res.Header.Get("Content-Length") != "11" {
			t.Errorf("%s: Content-Length %q", c.target, res.Header.Get("Content-Length"))
		}
		if len(rec.slept) != 1 || rec.slept[0] != c.want {
			t.Errorf("%s: slept %v, want [%v]", c.target, rec.slept, c.want)
		}
	}
}

func TestDelayRefusesBadValues(t *testing.T) {
	for _, target := range []string{"/delay?ms=", "/delay?ms=abc", "/delay?ms=-1", "/delay?ms=10001", "/delay?ms=1.5", "/delay?ms=99999999999999999999"} {
		rec := &recorder{}
		res, body := get(t, newHandler(rec.sleep), "GET", target)
		if res.StatusCode != 400 {
			t.Errorf("%s: status %d, want 400", target, res.StatusCode)
		}
		if !strings.HasPrefix(body, `{"ok":false,"error":"ms must be`) || res.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: body %q (%s)", target, body, res.Header.Get("Content-Type"))
		}
		if len(rec.slept) != 0 {
			t.Errorf("%s: slept %v on a bad value", target, rec.slept)
		}
	}
}

func TestOtherPathsAndMethods(t *testing.T) {
	h := newHandler((&recorder{}).sleep)
	if res, _ := get(t, h, "GET", "/nope"); res.StatusCode != 404 {
		t.Errorf("GET /nope: %d, want 404", res.StatusCode)
	}
	res, _ := get(t, h, "POST", "/delay")
	if res.StatusCode != 405 {
		t.Errorf("POST /delay: %d, want 405", res.StatusCode)
	}
	if allow := res.Header.Get("Allow"); !strings.Contains(allow, "GET") {
		t.Errorf("POST /delay: Allow %q", allow)
	}
}

// TestRealSleepOverHTTP runs the real handler on a real listener: 64
// concurrent 50 ms delays must finish in about 50 ms, not 64 × 50 ms, i.e.
// the server itself never serializes requests.
func TestRealSleepOverHTTP(t *testing.T) {
	srv := httptest.NewServer(newHandler(time.Sleep))
	defer srv.Close()
	const n = 64
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := http.Get(srv.URL + "/delay?ms=50")
			if err != nil {
				errs <- err.Error()
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				errs <- res.Status
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	el := time.Since(start)
	if el < 50*time.Millisecond || el > 1500*time.Millisecond {
		t.Errorf("64 concurrent 50 ms delays took %v, want about 50 ms", el)
	}
}
