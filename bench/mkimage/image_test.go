package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func spec(binary []byte) Spec {
	return Spec{
		Tag:        "stacklab-test/demo:1",
		Entrypoint: []string{"/app/demo"},
		Env:        []string{"PORT=8080", "A=b"},
		Ports:      []int{8080},
		Files: []File{
			{Path: "/app/demo", Mode: 0o755, Data: binary},
			{Path: "/etc/demo/conf.txt", Mode: 0o644, Data: []byte("x=1\n")},
		},
		Arch:    "amd64",
		Created: time.Unix(0, 0).UTC(),
	}
}

func TestSameInputSameBytesAndID(t *testing.T) {
	a, err := Build(spec([]byte("binary v1")))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(spec([]byte("binary v1")))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Archive, b.Archive) || a.ID != b.ID {
		t.Fatalf("two builds of one input differ: %s vs %s", a.ID, b.ID)
	}
	c, err := Build(spec([]byte("binary v2")))
	if err != nil {
		t.Fatal(err)
	}
	if c.ID == a.ID {
		t.Errorf("a different binary gave the same image id %s", a.ID)
	}
	later := spec([]byte("binary v1"))
	later.Created = time.Unix(1700000000, 0)
	d, _ := Build(later)
	if d.ID == a.ID {
		t.Errorf("a different SOURCE_DATE_EPOCH gave the same image id")
	}
}

type entry struct {
	hdr  *tar.Header
	data []byte
}

func readTar(t *testing.T, b []byte) []entry {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(b))
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		out = append(out, entry{h, data})
	}
}

// TestArchiveIsWhatDockerLoadReads checks the archive's structure the way
// docker load reads it: manifest -> config -> layer, with the config's
// diff_id being the sha256 of the layer and the id the sha256 of the config.
func TestArchiveIsWhatDockerLoadReads(t *testing.T) {
	img, err := Build(spec([]byte("\x7fELF demo")))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var names []string
	for _, e := range readTar(t, img.Archive) {
		files[e.hdr.Name] = e.data
		names = append(names, e.hdr.Name)
	}
	var man []struct {
		Config           string
		RepoTags, Layers []string
	}
	if err := json.Unmarshal(files["manifest.json"], &man); err != nil {
		t.Fatalf("manifest.json: %v (archive holds %q)", err, names)
	}
	if len(man) != 1 || len(man[0].Layers) != 1 || man[0].RepoTags[0] != "stacklab-test/demo:1" {
		t.Fatalf("manifest: %+v", man)
	}
	cfgJSON := files[man[0].Config]
	sum := sha256.Sum256(cfgJSON)
	if "sha256:"+hex.EncodeToString(sum[:]) != img.ID || man[0].Config != hex.EncodeToString(sum[:])+".json" {
		t.Errorf("image id %s is not the sha256 of the config %s", img.ID, man[0].Config)
	}
	var cfg config
	if err := json.Unmarshal(cfgJSON, &cfg); err != nil {
		t.Fatal(err)
	}
	layer := files[man[0].Layers[0]]
	lsum := sha256.Sum256(layer)
	if cfg.RootFS.DiffIDs[0] != "sha256:"+hex.EncodeToString(lsum[:]) {
		t.Errorf("diff_id %s is not the sha256 of the layer", cfg.RootFS.DiffIDs[0])
	}
	if cfg.Architecture != "amd64" || cfg.OS != "linux" || cfg.Created != "1970-01-01T00:00:00Z" ||
		strings.Join(cfg.Config.Entrypoint, " ") != "/app/demo" || strings.Join(cfg.Config.Env, " ") != "PORT=8080 A=b" {
		t.Errorf("config: %s", cfgJSON)
	}
	if _, ok := cfg.Config.ExposedPorts["8080/tcp"]; !ok {
		t.Errorf("config exposes %v, want 8080/tcp", cfg.Config.ExposedPorts)
	}

	want := []struct {
		name string
		mode int64
		typ  byte
	}{
		{"app/", 0o755, tar.TypeDir},
		{"app/demo", 0o755, tar.TypeReg},
		{"etc/", 0o755, tar.TypeDir},
		{"etc/demo/", 0o755, tar.TypeDir},
		{"etc/demo/conf.txt", 0o644, tar.TypeReg},
		{"tmp/", 0o1777, tar.TypeDir},
	}
	got := readTar(t, layer)
	if len(got) != len(want) {
		var n []string
		for _, e := range got {
			n = append(n, e.hdr.Name)
		}
		t.Fatalf("layer holds %q", n)
	}
	for i, w := range want {
		h := got[i].hdr
		if h.Name != w.name || h.Mode != w.mode || h.Typeflag != w.typ {
			t.Errorf("layer entry %d: %s %o %c, want %s %o %c", i, h.Name, h.Mode, h.Typeflag, w.name, w.mode, w.typ)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || !h.ModTime.Equal(time.Unix(0, 0)) || len(h.PAXRecords) != 0 {
			t.Errorf("layer entry %s: owner %d:%d %q:%q, mtime %v, pax %v", h.Name, h.Uid, h.Gid, h.Uname, h.Gname, h.ModTime, h.PAXRecords)
		}
	}
	if string(got[1].data) != "\x7fELF demo" {
		t.Errorf("binary content %q", got[1].data)
	}
}

func TestBadPathsAreRefused(t *testing.T) {
	for _, files := range [][]File{
		{{Path: "/", Data: nil}},
		{{Path: "/../etc/x"}},
		{{Path: "/a"}, {Path: "/a"}},
		{{Path: "/a"}, {Path: "/a/b"}},
	} {
		s := spec(nil)
		s.Files = files
		if _, err := Build(s); err == nil {
			t.Errorf("files %+v were accepted", files)
		}
	}
}

// TestCommandLine runs the real command on a real static binary (this test
// binary's own toolchain builds one) and on bad input.
func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	notELF := filepath.Join(dir, "script.sh")
	os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755)
	out := filepath.Join(dir, "image.tar")
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"--tag", "a:b", "--out", out}, "--binary is required"},
		{[]string{"--binary", exe, "--tag", "Bad Tag", "--out", out}, `--tag "Bad Tag" is not a valid image reference`},
		{[]string{"--binary", notELF, "--tag", "a:b", "--out", out}, "is not an ELF executable"},
		{[]string{"--binary", filepath.Join(dir, "none"), "--tag", "a:b", "--out", out}, "--binary: open"},
		{[]string{"--binary", exe, "--tag", "a:b", "--out", out, "--port", "80000"}, `--port "80000" is not a TCP port number`},
		{[]string{"--binary", exe, "--tag", "a:b", "--out", out, "--env", "NOEQUALS"}, `--env "NOEQUALS" is not K=V`},
		{[]string{"--binary", exe, "--tag", "a:b", "--out", out, "--file", "x:relative"}, "is not SRC:/absolute/dest"},
	}
	for _, c := range bad {
		err := run(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("mkimage %q: error %v, want one containing %q", c.args, err, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused run wrote %s", out)
	}
	// Debian's /bin/sh is dynamically linked: useless in a scratch image.
	if err := run([]string{"--binary", "/bin/sh", "--tag", "a:b", "--out", out}); err == nil || !strings.Contains(err.Error(), "dynamically linked") {
		t.Errorf("/bin/sh: %v, want a refusal naming dynamic linking", err)
	}

	// The happy path on a real static ELF, built here from a tiny program.
	exe = buildStatic(t, dir)
	conf := filepath.Join(dir, "conf.txt")
	os.WriteFile(conf, []byte("k=v\n"), 0o600)
	args := []string{"--binary", exe, "--tag", "stacklab-test/demo:1", "--out", out, "--port", "8080", "--env", "PORT=8080", "--file", conf + ":/etc/demo.conf"}
	if err := run(args); err != nil {
		t.Fatalf("mkimage %q: %v", args, err)
	}
	first, _ := os.ReadFile(out)
	os.Chmod(conf, 0o644) // the umask of a checkout must not change the image
	if err := run(args); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(out)
	if len(first) == 0 || !bytes.Equal(first, second) {
		t.Errorf("two runs on one input wrote different archives (%d and %d bytes)", len(first), len(second))
	}
}

func buildStatic(t *testing.T, dir string) string {
	t.Helper()
	src := filepath.Join(dir, "hello.go")
	os.WriteFile(src, []byte("package main\n\nfunc main() { println(\"hello\") }\n"), 0o644)
	exe := filepath.Join(dir, "hello")
	cmd := exec.Command("go", "build", "-trimpath", "-o", exe, src)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of a static test binary: %v\n%s", err, out)
	}
	return exe
}

func TestEpoch(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "")
	if e, _ := epoch(); e.Unix() != 0 {
		t.Errorf("unset SOURCE_DATE_EPOCH gave %v", e)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	if e, _ := epoch(); e.Unix() != 1700000000 {
		t.Errorf("SOURCE_DATE_EPOCH=1700000000 gave %v", e)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	if _, err := epoch(); err == nil || !strings.Contains(err.Error(), "SOURCE_DATE_EPOCH") {
		t.Errorf("bad SOURCE_DATE_EPOCH: %v", err)
	}
}
