package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"stacklab/formats/uplog"
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
		res, body := get(t, newHandler(rec.sleep, uplog.NewRecorder()), "GET", c.target)
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
		res, body := get(t, newHandler(rec.sleep, uplog.NewRecorder()), "GET", target)
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
	h := newHandler((&recorder{}).sleep, uplog.NewRecorder())
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

// Every delay's answer is counted with how late it was, and /lateness
// answers the span asked for in the format formats/uplog reads: here one
// delay that overslept by 60 ms (a sleep that stands for a CPU the
// upstream waited for) and one on time.
func TestLatenessCountsEachDelay(t *testing.T) {
	late := uplog.NewRecorder()
	h := newHandler(func(d time.Duration) {
		if d > 0 {
			d += 60 * time.Millisecond
		}
		time.Sleep(d)
	}, late)
	from := time.Now()
	get(t, h, "GET", "/delay?ms=1")
	get(t, h, "GET", "/delay?ms=0")
	to := time.Now().Add(time.Millisecond)
	res, body := get(t, h, "GET", "/lateness?from_ms="+strconv.FormatInt(from.UnixMilli(), 10)+"&to_ms="+strconv.FormatInt(to.UnixMilli(), 10))
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("status %d (%s): %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	f, err := uplog.Parse(strings.NewReader(body), "lateness")
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	if c := f.Header.Counts; c.Answers != 2 || c.Late50ms != 1 || c.MaxLate() < 60*time.Millisecond || c.MaxLate() > time.Second {
		t.Errorf("counted %+v, want 2 answers, one 60 ms or more late", c)
	}
	for _, q := range []string{"", "?from_ms=1", "?from_ms=x&to_ms=2", "?from_ms=5&to_ms=5", "?from_ms=1&to_ms=999999999999"} {
		if res, body := get(t, h, "GET", "/lateness"+q); res.StatusCode != 400 || !strings.HasPrefix(body, `{"ok":false,"error":`) {
			t.Errorf("/lateness%s: %d %s, want 400 and the reason", q, res.StatusCode, body)
		}
	}
}

// TestRealSleepOverHTTP runs the real handler on a real listener: 64
// concurrent 50 ms delays must finish in about 50 ms, not 64 × 50 ms, i.e.
// the server itself never serializes requests.
func TestRealSleepOverHTTP(t *testing.T) {
	srv := httptest.NewServer(newHandler(time.Sleep, uplog.NewRecorder()))
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

// TestSIGTERMFinishesInFlightAndExits runs the real binary: a 1 s delay in
// flight at SIGTERM still gets its 200, and the process exits 0.
func TestSIGTERMFinishesInFlightAndExits(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "upstream")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cmd := exec.Command(bin)
	cmd.Env = []string{"PORT=" + port}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	base := "http://127.0.0.1:" + port
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(base + "/delay?ms=0"); err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the binary did not answer within 10 s")
		}
	}
	inflight := make(chan string, 1)
	go func() {
		res, err := http.Get(base + "/delay?ms=1000")
		if err != nil {
			inflight <- err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		inflight <- res.Status + " " + string(b)
	}()
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("exit after SIGTERM: %v, want status 0", err)
		}
	case <-time.After(6 * time.Second):
		t.Fatal("still running 6 s after SIGTERM")
	}
	if got := <-inflight; got != `200 OK {"ok":true}` {
		t.Errorf("request in flight at SIGTERM got %q", got)
	}
}
