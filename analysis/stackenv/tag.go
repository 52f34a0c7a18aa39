package stackenv

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Tag is the image tag of the stack name, stacklab/NAME:<first 12 hex of
// InputsHash>.
func (l Lab) Tag(name string, buildArgs []string) (string, error) {
	h, err := l.InputsHash(name, buildArgs)
	if err != nil {
		return "", err
	}
	return "stacklab/" + name + ":" + h, nil
}

// InputsHash is sha256 over everything the stack's image is built from, as
// its stack.env declares it (stacks/README.md, "The image's inputs"): the
// files of its folder (and of the folder it SHARES) and of each INPUTS path (as git sees them: tracked,
// and untracked but not ignored), the version of each TOOLCHAINS program,
// the ids of its DEPENDS images, for HOST_INPUTS=1 what `build-image
// --host-inputs` prints (base: the host's Debian mirrors), and a build
// variant's arguments ("K=V", scripts/images), first 12 hex digits. Same
// inputs, same tag: an unchanged stack is not rebuilt; a changed input
// (go.sum, bench/mkimage, a new rustc) rebuilds it.
//
// The text hashed is, line for line, what the lab's bash hashed before Go
// owned it (sha256sum's lines, "folder", "input P", "toolchain T: …",
// "depends D ID", "build-arg K=V"), so an unchanged stack keeps its tag.
func (l Lab) InputsHash(name string, buildArgs []string) (string, error) {
	s, err := l.Read(name)
	if err != nil {
		return "", err
	}
	for _, k := range []string{"INPUTS", "TOOLCHAINS"} {
		if !s.Has(k) {
			return "", bad("%s: no %s= line (every stack declares its image's inputs, even as %s=\"\"; see stacks/README.md)", s.File, k, k)
		}
	}
	inputs := s.Words("INPUTS")
	for _, p := range inputs {
		if strings.HasPrefix(p, "/") || strings.Contains("/"+p+"/", "/../") {
			return "", bad("%s: INPUTS path '%s' is not inside the lab (paths are relative to its root)", s.File, p)
		}
		if _, err := os.Stat(filepath.Join(l.Root, p)); err != nil {
			return "", bad("%s: INPUTS path '%s' does not exist", s.File, p)
		}
	}
	var deps bytes.Buffer
	for _, d := range s.Words("DEPENDS") {
		tag, ok := l.Made[d]
		if !ok {
			if tag, err = l.Tag(d, nil); err != nil {
				return "", err
			}
			if l.Made != nil {
				l.Made[d] = tag
			}
		}
		id := ""
		if l.ImageID != nil {
			id = l.ImageID(tag)
		}
		fmt.Fprintf(&deps, "depends %s %s\n", d, id)
	}
	var b bytes.Buffer
	b.WriteString("folder\n")
	if err := hashFiles(&b, s.Dir, "."); err != nil {
		return "", err
	}
	if sh := s.Values["SHARES"]; sh != "" {
		// the folder this one is laid over (absent for every other stack,
		// so their tags are what they were)
		fmt.Fprintf(&b, "shares %s\n", sh)
		if err := hashFiles(&b, s.SharedDir(), "."); err != nil {
			return "", err
		}
	}
	for _, p := range inputs {
		fmt.Fprintf(&b, "input %s\n", p)
		full := filepath.Join(l.Root, p)
		if st, err := os.Stat(full); err == nil && st.Mode().IsRegular() {
			if err := sumLine(&b, l.Root, p); err != nil {
				return "", err
			}
		} else if err := hashFiles(&b, l.Root, p); err != nil {
			return "", err
		}
	}
	for _, t := range s.Words("TOOLCHAINS") {
		v := "not installed"
		if l.Toolchain != nil {
			v = l.Toolchain(t)
		}
		fmt.Fprintf(&b, "toolchain %s: %s\n", t, v)
	}
	if s.Values["HOST_INPUTS"] == "1" {
		b.WriteString("host inputs\n")
		cmd := exec.Command(filepath.Join(s.Dir, "build-image"), "--host-inputs")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return "", bad("stacks/%s: build-image --host-inputs failed", name)
		}
		b.Write(out)
	}
	b.Write(deps.Bytes())
	// absent for an ordinary build, so its tag is what it always was
	for _, kv := range buildArgs {
		if kv != "" {
			fmt.Fprintf(&b, "build-arg %s\n", kv)
		}
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])[:12], nil
}

// hashFiles writes a sha256sum line for each file git sees under path
// (relative to dir), in byte order. Outside a git work tree git says so on
// stderr and no file is listed, as before.
func hashFiles(w io.Writer, dir, path string) error {
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard", "--", path)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, _ := cmd.Output()
	lines := strings.Split(string(out), "\n")
	sort.Strings(lines)
	for _, p := range lines {
		p = strings.Trim(p, " \t")
		if p == "" {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, p)); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if err := sumLine(w, dir, p); err != nil {
			return err
		}
	}
	return nil
}

// sumLine writes sha256sum's line for the file p (relative to dir): the
// hex digest, two spaces, the name (a name with a backslash escaped as
// sha256sum escapes it).
func sumLine(w io.Writer, dir, p string) error {
	f, err := os.Open(filepath.Join(dir, p))
	if err != nil {
		return bad("%s: %v", filepath.Join(dir, p), err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return bad("%s: %v", filepath.Join(dir, p), err)
	}
	prefix := ""
	if strings.Contains(p, "\\") {
		prefix, p = "\\", strings.ReplaceAll(p, "\\", "\\\\")
	}
	_, err = fmt.Fprintf(w, "%s%x  %s\n", prefix, h.Sum(nil), p)
	return err
}
