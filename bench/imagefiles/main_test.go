package main

import (
	"archive/tar"
	"bytes"
	"strings"
	"testing"
	"time"
)

type file struct {
	name, body string
	mode       int64
	mtime      time.Time
}

func archive(t *testing.T, files ...file) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), ModTime: f.mtime, Typeflag: tar.TypeReg}
		if strings.HasSuffix(f.name, "/") {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(f.body))
		}
	}
	tw.Close()
	return b.Bytes()
}

func digest(t *testing.T, b []byte) string {
	t.Helper()
	d, _, err := Digest(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A rebuild that writes the same files at another time, in another order,
// has the same digest; any change a program could notice does not.
func TestSameFilesSameDigest(t *testing.T) {
	t0, t1 := time.Unix(1, 0), time.Unix(1_700_000_000, 0)
	a := archive(t, file{"app/", "", 0o755, t0}, file{"app/run.py", "print(1)\n", 0o644, t0}, file{"etc/x", "y", 0o600, t0})
	b := archive(t, file{"etc/x", "y", 0o600, t1}, file{"app/run.py", "print(1)\n", 0o644, t1}, file{"./app/", "", 0o755, t1})
	if digest(t, a) != digest(t, b) {
		t.Fatal("the same files written at other times and in another order gave another digest")
	}
	for what, c := range map[string][]byte{
		"content": archive(t, file{"app/", "", 0o755, t0}, file{"app/run.py", "print(2)\n", 0o644, t0}, file{"etc/x", "y", 0o600, t0}),
		"mode":    archive(t, file{"app/", "", 0o755, t0}, file{"app/run.py", "print(1)\n", 0o755, t0}, file{"etc/x", "y", 0o600, t0}),
		"path":    archive(t, file{"app/", "", 0o755, t0}, file{"app/run2.py", "print(1)\n", 0o644, t0}, file{"etc/x", "y", 0o600, t0}),
		"a file":  archive(t, file{"app/", "", 0o755, t0}, file{"app/run.py", "print(1)\n", 0o644, t0}),
	} {
		if digest(t, c) == digest(t, a) {
			t.Errorf("another %s gave the same digest", what)
		}
	}
}

func TestBadInputIsOneLine(t *testing.T) {
	a := archive(t, file{"app/run.py", strings.Repeat("x", 4096), 0o644, time.Unix(1, 0)})
	for what, in := range map[string][]byte{"empty": nil, "truncated": a[:1500], "not a tar": []byte(strings.Repeat("junk ", 200))} {
		_, _, err := Digest(bytes.NewReader(in))
		if err == nil {
			t.Errorf("%s input: no error", what)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s input: error spans lines: %q", what, err)
		}
	}
}
