// Command mkimage writes a Docker image archive (the format `docker load`
// reads) holding one static binary and optional extra files, with no base
// image and no registry. The archive is deterministic: fixed timestamps,
// sorted entries, owner 0:0, fixed modes. The same inputs give the same
// bytes, so the same image id on every rebuild.
//
//	mkimage --binary bin/server --tag stacklab/go-nethttp:dev --out image.tar --port 8080
//	docker load -i image.tar
package main

import (
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// tagRE is a loose form of Docker's reference grammar: enough to refuse a
// typo here with a clear line instead of a failed `docker load` later.
var tagRE = regexp.MustCompile(`^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$`)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "mkimage: %v\n", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("mkimage", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: mkimage --binary PATH --tag TAG --out FILE [--port N] [--env K=V]... [--file SRC:DEST]...

Writes a Docker image archive for a static binary, byte for byte the same
for the same inputs. Load it with: docker load -i FILE

The binary goes to /app/<its file name> and is the image's entrypoint.
Timestamps come from SOURCE_DATE_EPOCH (default 0).

Example:
  mkimage --binary /tmp/b/server --tag stacklab/go-nethttp:dev --out /tmp/b/image.tar --port 8080 --env PORT=8080
`)
		fs.PrintDefaults()
	}
	binary := fs.String("binary", "", "static binary to run (required)")
	tag := fs.String("tag", "", "image tag written into the archive, e.g. stacklab/upstream:dev (required)")
	out := fs.String("out", "", "archive to write (required)")
	var ports, envs, extra multi
	fs.Var(&ports, "port", "TCP port to expose (repeatable)")
	fs.Var(&envs, "env", "K=V in the image's environment (repeatable, order kept)")
	fs.Var(&extra, "file", "SRC:DEST extra file, DEST absolute (repeatable)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		return errors.New("bad arguments (see --help)")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for name, v := range map[string]string{"--binary": *binary, "--tag": *tag, "--out": *out} {
		if v == "" {
			return fmt.Errorf("%s is required", name)
		}
	}
	if !tagRE.MatchString(*tag) {
		return fmt.Errorf("--tag %q is not a valid image reference (lower-case name[:tag])", *tag)
	}
	created, err := epoch()
	if err != nil {
		return err
	}
	entry := "/app/" + filepath.Base(*binary)
	spec := Spec{Tag: *tag, Entrypoint: []string{entry}, Env: envs, Created: created}
	for _, p := range ports {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("--port %q is not a TCP port number", p)
		}
		spec.Ports = append(spec.Ports, n)
	}
	for _, e := range envs {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return fmt.Errorf("--env %q is not K=V", e)
		}
	}
	for _, f := range extra {
		src, dest, ok := strings.Cut(f, ":")
		if !ok || src == "" || !path.IsAbs(dest) || strings.HasSuffix(dest, "/") {
			return fmt.Errorf("--file %q is not SRC:/absolute/dest", f)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("--file: %v", err)
		}
		st, _ := os.Stat(src)
		// Only the executable bit is carried over: modes must not depend
		// on the umask of whoever checked the repository out.
		mode := int64(0o644)
		if st.Mode()&0o111 != 0 {
			mode = 0o755
		}
		spec.Files = append(spec.Files, File{Path: dest, Mode: mode, Data: data})
	}
	arch, err := staticELF(*binary)
	if err != nil {
		return err
	}
	bin, err := os.ReadFile(*binary)
	if err != nil {
		return fmt.Errorf("--binary: %v", err)
	}
	spec.Arch = arch
	spec.Files = append([]File{{Path: entry, Mode: 0o755, Data: bin}}, spec.Files...)
	img, err := Build(spec)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, img.Archive, 0o644); err != nil {
		return fmt.Errorf("--out: %v", err)
	}
	fmt.Println(img.ID)
	return nil
}

// epoch reads SOURCE_DATE_EPOCH (the reproducible-builds convention);
// unset means 0.
func epoch() (time.Time, error) {
	v := os.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > 8589934591 { // USTAR's 11 octal digits
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q is not Unix seconds", v)
	}
	return time.Unix(n, 0).UTC(), nil
}

// staticELF refuses anything a scratch image cannot run: a non-ELF file or
// a dynamically linked one (it would need a loader and libc the image does
// not have). It returns the GOARCH name of the binary's machine.
func staticELF(p string) (string, error) {
	f, err := elf.Open(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return "", fmt.Errorf("--binary: %v", err)
		}
		return "", fmt.Errorf("--binary %s is not an ELF executable", p)
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return "", fmt.Errorf("--binary %s is dynamically linked; a scratch image needs a static binary", p)
		}
	}
	switch f.Machine {
	case elf.EM_X86_64:
		return "amd64", nil
	case elf.EM_AARCH64:
		return "arm64", nil
	}
	return "", fmt.Errorf("--binary %s is for %v, which mkimage does not know", p, f.Machine)
}
