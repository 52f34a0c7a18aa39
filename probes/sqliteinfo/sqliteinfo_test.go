package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func options(t *testing.T, name string) []string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return ParseOptions(string(b))
}

func findings(b Build) (serial []string, all string) {
	var texts []string
	for _, f := range b.Judge() {
		texts = append(texts, f.Text)
		if f.Serialises {
			serial = append(serial, f.Text)
		}
	}
	return serial, strings.Join(texts, "\n")
}

func TestJudgeDebianBuild(t *testing.T) {
	on := true
	serial, all := findings(Build{Options: options(t, "debian-3.40.1.options"), MemStatus: &on, ThreadSafe: -1})
	if len(serial) != 2 || !strings.Contains(serial[0], "memory statistics ON") || !strings.Contains(serial[1], "OMIT_LOOKASIDE") {
		t.Errorf("Debian's libsqlite3: serialising findings %q", serial)
	}
	if !strings.Contains(all, "THREADSAFE=1 (serialized)") || !strings.Contains(all, "synchronous FULL") {
		t.Errorf("findings:\n%s", all)
	}
}

func TestJudgeWithoutRuntimeAnswerFallsBackToOptions(t *testing.T) {
	serial, _ := findings(Build{Options: options(t, "go-sqlite3-excerpt.options"), ThreadSafe: -1})
	if len(serial) != 1 || !strings.Contains(serial[0], "on by default") {
		t.Errorf("no DEFAULT_MEMSTATUS=0 means memstatus on: %q", serial)
	}
	serial, all := findings(Build{Options: options(t, "tuned.options"), ThreadSafe: -1})
	if len(serial) != 0 || !strings.Contains(all, "THREADSAFE=2 (multi-thread)") || !strings.Contains(all, "off by default") {
		t.Errorf("tuned build: serialising %q\n%s", serial, all)
	}
}

func TestParseMemoryUsed(t *testing.T) {
	on, ok := parseMemoryUsed("1\nMemory Used:                         20624 (max 24512) bytes\n")
	if !on || !ok {
		t.Error("20624 bytes used means memstatus on")
	}
	on, ok = parseMemoryUsed("Memory Used:                         0 (max 0) bytes\n")
	if on || !ok {
		t.Error("0 bytes used means memstatus off")
	}
	if _, ok := parseMemoryUsed("1\n"); ok {
		t.Error("no stats line must be 'unknown'")
	}
}

// The seed's bug, reproduced for real: pragmas run once through the pool
// reach one connection only.
func TestNaivePoolLeavesConnectionsAtFull(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	naive, err := demo(ctx, filepath.Join(dir, "n.db"), 4, false)
	if err != nil {
		t.Fatal(err)
	}
	hooked, err := demo(ctx, filepath.Join(dir, "h.db"), 4, true)
	if err != nil {
		t.Fatal(err)
	}
	if countSync(naive, "1") != 1 || countSync(naive, "2") != 3 || offAny(naive) != 3 {
		t.Errorf("naive pool: want 1 NORMAL and 3 FULL, got %+v", naive)
	}
	if countSync(hooked, "1") != 4 || offAny(hooked) != 0 {
		t.Errorf("hooked pool: want all 4 on the contract, got %+v", hooked)
	}
	v := verdict(Build{}, naive, hooked, false, nil, nil)
	if !strings.Contains(v, "naive pool: 3 of 4 connections off the contract (synchronous FULL(2) on 3)") || !strings.Contains(v, "hooked pool: 4 of 4 at NORMAL") {
		t.Errorf("verdict %q", v)
	}
}

func TestURLSamplingGroupsAnswers(t *testing.T) {
	good := `{"journal_mode":"WAL","synchronous":1,"busy_timeout":5000,"cache_size":2000,"mmap_size":134217728,"journal_size_limit":67108864,"foreign_keys":1}`
	bad := strings.Replace(good, `"synchronous":1`, `"synchronous":2`, 1)
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/bench/pragmas" {
			http.NotFound(w, r)
			return
		}
		n++ // handlers run one at a time below (concurrency 1)
		if n%4 == 0 {
			fmt.Fprint(w, bad)
			return
		}
		fmt.Fprint(w, good)
	}))
	defer srv.Close()
	u, err := checkLoopback(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	answers, failures, _ := samplePragmas(context.Background(), u, 20, 1)
	if len(failures) != 0 || len(answers) != 2 || answers[0].Count != 15 || answers[1].Count != 5 {
		t.Fatalf("answers %+v failures %v", answers, failures)
	}
	if m := mismatches(answers[0].Body); len(m) != 0 {
		t.Errorf("the contract's answer reported as off: %v", m)
	}
	if m := mismatches(answers[1].Body); len(m) != 1 || m[0] != "synchronous=2 (want 1)" {
		t.Errorf("mismatches %v", m)
	}
	v := verdict(Build{}, nil, nil, true, answers, failures)
	if !strings.Contains(v, "--url: 5 answers OFF the contract, 0 failed") {
		t.Errorf("verdict %q", v)
	}
}

func TestOnlyLoopbackTargets(t *testing.T) {
	for _, u := range []string{"http://10.0.0.5:8080", "http://example.com", "ftp://127.0.0.1", "127.0.0.1:8080"} {
		if _, err := checkLoopback(u); err == nil {
			t.Errorf("%s accepted", u)
		}
	}
	for _, u := range []string{"http://127.0.0.1:8080", "http://localhost:18500/"} {
		if _, err := checkLoopback(u); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
}
