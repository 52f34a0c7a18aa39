package main

import (
	"database/sql"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestConfigFromEnvironment(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	t.Setenv("GOMAXPROCS", "")
	t.Setenv("LAB_CPUS", "3")
	t.Setenv("DB_POOL_SIZE", "")
	c, err := loadConfig()
	if err != nil || c.procs != 3 || runtime.GOMAXPROCS(0) != 3 || c.pool != 6 {
		t.Errorf("LAB_CPUS=3: procs %d, GOMAXPROCS %d, pool %d, err %v; want 3, 3, 6", c.procs, runtime.GOMAXPROCS(0), c.pool, err)
	}
	t.Setenv("LAB_CPUS", "1")
	if c, _ := loadConfig(); c.pool != 4 {
		t.Errorf("LAB_CPUS=1: pool %d, want the floor of 4", c.pool)
	}
	t.Setenv("DB_POOL_SIZE", "9")
	if c, _ := loadConfig(); c.pool != 9 {
		t.Errorf("DB_POOL_SIZE=9: pool %d", c.pool)
	}
	if c, err := loadConfig(); err != nil || c.anyCookie || c.noCSRF {
		t.Errorf("planted faults on by default: %+v %v", c, err)
	}
	t.Setenv("SELFTEST_ANY_COOKIE", "1")
	t.Setenv("SELFTEST_NO_CSRF", "0")
	if c, err := loadConfig(); err != nil || !c.anyCookie || c.noCSRF {
		t.Errorf("SELFTEST_ANY_COOKIE=1 SELFTEST_NO_CSRF=0: %v %v %v", c.anyCookie, c.noCSRF, err)
	}
	t.Setenv("SELFTEST_ANY_COOKIE", "")
	t.Setenv("SELFTEST_NO_CSRF", "1")
	if c, err := loadConfig(); err != nil || c.anyCookie || !c.noCSRF {
		t.Errorf("SELFTEST_NO_CSRF=1: %v %v %v", c.anyCookie, c.noCSRF, err)
	}
	t.Setenv("SELFTEST_NO_CSRF", "")
	t.Setenv("DB_ACQUIRE_TIMEOUT_MS", "5")
	if c, _ := loadConfig(); c.acquire != 5*time.Millisecond {
		t.Errorf("DB_ACQUIRE_TIMEOUT_MS=5: acquire %v", c.acquire)
	}
	for _, bad := range []struct{ k, v, want string }{
		{"LAB_CPUS", "zero", "LAB_CPUS must be a positive integer"},
		{"DB_ACQUIRE_TIMEOUT_MS", "-1", "DB_ACQUIRE_TIMEOUT_MS must be a positive integer"},
		{"DB_POOL_SIZE", "0", "DB_POOL_SIZE must be a positive integer"},
		{"PORT", "80800", "PORT must be a TCP port number"},
		{"UPSTREAM_URL", "127.0.0.1:9090", "UPSTREAM_URL must be an http:// URL"},
		{"SELFTEST_BURN_US", "5us", "SELFTEST_BURN_US must be a positive integer"},
		{"SELFTEST_PRAGMAS_ONCE", "yes", "SELFTEST_PRAGMAS_ONCE must be 0 or 1"},
		{"SELFTEST_ANY_COOKIE", "true", "SELFTEST_ANY_COOKIE must be 0 or 1"},
		{"SELFTEST_NO_CSRF", "2", "SELFTEST_NO_CSRF must be 0 or 1"},
	} {
		t.Run(bad.k, func(t *testing.T) {
			t.Setenv(bad.k, bad.v)
			if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Errorf("%s=%s: %v, want %q", bad.k, bad.v, err, bad.want)
			}
		})
	}
}

// The planted slowdown costs about the CPU time it names: a request of
// the wrapped handler takes at least 500 µs more than one of the plain.
func TestBurnSpendsTheNamedTime(t *testing.T) {
	t.Setenv("SELFTEST_BURN_US", "0")
	if c, err := loadConfig(); err != nil || c.burnUS != 0 {
		t.Errorf("SELFTEST_BURN_US=0: %d, %v", c.burnUS, err)
	}
	plain := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	if h, rounds := burning(plain, 0); rounds != 0 || h == nil {
		t.Errorf("0 µs: %d rounds", rounds)
	}
	h, rounds := burning(plain, 1000)
	if rounds < 1000 {
		t.Fatalf("1000 µs: only %d rounds", rounds)
	}
	best := time.Hour
	for range 5 {
		start := time.Now()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/json", nil))
		best = min(best, time.Since(start))
	}
	if best < 500*time.Microsecond || best > 5*time.Millisecond {
		t.Errorf("a 1000 µs burn took %v at best", best)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// TestSIGTERMFinishesInFlightAndExits runs the real binary: a request in
// flight (an upstream call held for 1 s) still gets its 200, and the process
// exits 0 well within docs/app.md's 5 s.
func TestSIGTERMFinishesInFlightAndExits(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "go-nethttp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dbPath := filepath.Join(dir, "app.db")
	seed, _ := sql.Open("sqlite3", dbPath)
	if _, err := seed.Exec(labSchema(t)); err != nil {
		t.Fatal(err)
	}
	seed.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Second)
		io.WriteString(w, `{"ok":true}`)
	}))
	defer slow.Close()

	port := freePort(t)
	cmd := exec.Command(bin)
	cmd.Env = []string{"PORT=" + port, "DATABASE_PATH=" + dbPath, "UPSTREAM_URL=" + slow.URL, "LAB_CPUS=1"}
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
		if res, err := http.Get(base + "/up"); err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the binary did not answer /up within 10 s")
		}
	}
	inflight := make(chan string, 1)
	go func() {
		res, err := http.Get(base + "/bench/upstream")
		if err != nil {
			inflight <- err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		inflight <- res.Status + " " + string(b)
	}()
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		exited <- err // for the deferred cleanup
		if err != nil {
			t.Errorf("exit after SIGTERM: %v, want status 0", err)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("exited %v after SIGTERM, docs/app.md allows 5 s", el)
		}
	case <-time.After(6 * time.Second):
		t.Fatal("still running 6 s after SIGTERM")
	}
	if got := <-inflight; got != `200 OK {"ok":true,"upstream":200}` {
		t.Errorf("request in flight at SIGTERM got %q", got)
	}
}
