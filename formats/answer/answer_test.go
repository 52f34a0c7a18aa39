package answer

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadCountsTheWire(t *testing.T) {
	for name, tc := range map[string]struct {
		raw                 string
		head, body, content int
		framing             string
		headers             string
	}{
		"length": {"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 27\r\nDate: x\r\n\r\n{\"message\":\"Hello, World!\"}",
			17 + 32 + 20 + 9 + 2, 27, 27, "content-length", "content-length content-type date"},
		"chunked": {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Runtime: 1\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
			17 + 28 + 14 + 2, 3 + 5 + 2 + 3 + 6 + 2 + 3 + 2, 11, "chunked", "transfer-encoding x-runtime"},
	} {
		a, err := Read(bufio.NewReader(strings.NewReader(tc.raw)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if a.HeadBytes != tc.head || a.BodyBytes != tc.body || a.ContentBytes != tc.content || a.Framing != tc.framing || strings.Join(a.Headers, " ") != tc.headers {
			t.Errorf("%s: %+v", name, a)
		}
		if a.WireBytes() != len(tc.raw) {
			t.Errorf("%s: %d wire bytes, the answer is %d", name, a.WireBytes(), len(tc.raw))
		}
	}
	if _, err := Read(bufio.NewReader(strings.NewReader("SSH-2.0\r\n"))); err == nil {
		t.Error("not HTTP: no error")
	}
}

func TestCaptureFromAServer(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("ok"))
	})}
	go srv.Serve(ln)
	defer srv.Close()
	a, err := Capture("http://"+ln.Addr().String(), "/up", 2*time.Second)
	if err != nil || a.Status != 200 || a.ContentBytes != 2 || a.Path != "/up" || a.Method != "GET" {
		t.Fatalf("%+v, %v", a, err)
	}
	path := filepath.Join(t.TempDir(), "answers.json")
	if err := WriteFile(path, []Answer{a}); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil || len(back) != 1 || Of(back, "GET", "/up") == nil || Of(back, "GET", "/json") != nil {
		t.Errorf("%+v, %v", back, err)
	}
	os.WriteFile(path, []byte(`[{"path":"/up","status":200,"head_bytes":0}]`), 0o644)
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "answer 1") {
		t.Errorf("bad head: %v", err)
	}
	if _, err := Capture("http://10.0.0.1:80", "/", time.Second); err == nil {
		t.Error("a non-loopback address was accepted")
	}
}
