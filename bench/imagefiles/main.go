// Command imagefiles prints a digest of an image's file tree: paths, types,
// modes, owners, link targets, extended attributes and contents, but not
// times. Two `docker build`s of the same pinned inputs give images with other
// ids (every layer records when its files were written), yet the same files;
// this digest tells the two cases apart. It reads the tar that
// `docker export` writes for a created container.
//
//	cid=$(docker create stacklab/python-fastapi:d2933a5be309)
//	docker export "$cid" | imagefiles
//	docker rm "$cid"
//
// It prints "files:sha256:<hex> <entries>". With --list it prints instead
// the line each entry contributes, sorted, so `diff` of two lists shows
// which files two images do not share.
package main

import (
	"archive/tar"
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
)

func main() {
	list := false
	switch {
	case len(os.Args) == 2 && os.Args[1] == "--list":
		list = true
	case len(os.Args) > 1:
		fmt.Fprintf(os.Stderr, "imagefiles: unknown argument %q (usage: docker export CONTAINER | imagefiles [--list])\n", os.Args[1])
		os.Exit(2)
	}
	lines, err := Entries(os.Stdin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "imagefiles: %v\n", err)
		os.Exit(1)
	}
	if list {
		w := bufio.NewWriter(os.Stdout)
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
		if err := w.Flush(); err != nil {
			fmt.Fprintf(os.Stderr, "imagefiles: %v\n", err)
			os.Exit(1)
		}
		return
	}
	fmt.Printf("%s %d\n", sum(lines), len(lines))
}

// Digest reads a tar stream and returns the digest of its entries, sorted
// by path, and how many there were.
func Digest(r io.Reader) (string, int, error) {
	lines, err := Entries(r)
	if err != nil {
		return "", 0, err
	}
	return sum(lines), len(lines), nil
}

func sum(lines []string) string {
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l)
		h.Write([]byte{'\n'})
	}
	return "files:sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Entries reads a tar stream and returns one line per entry, sorted by path.
func Entries(r io.Reader) ([]string, error) {
	tr := tar.NewReader(r)
	var lines []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the tar (entry %d): %w", len(lines)+1, err)
		}
		line, err := describe(h, tr)
		if err != nil {
			return nil, err
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil, errors.New("the tar is empty: is this `docker export` of a created container?")
	}
	sort.Strings(lines)
	return lines, nil
}

// describe is one entry as a line that starts with its cleaned path, so
// sorting the lines sorts by path. Times and user/group names are left out.
func describe(h *tar.Header, body io.Reader) (string, error) {
	name := path.Clean("/" + h.Name)
	content := "-"
	if h.Typeflag == tar.TypeReg {
		s := sha256.New()
		n, err := io.Copy(s, body)
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", name, err)
		}
		if n != h.Size {
			return "", fmt.Errorf("%s: %d bytes read, the header says %d (truncated tar?)", name, n, h.Size)
		}
		content = hex.EncodeToString(s.Sum(nil))
	}
	var xattrs []string
	for k, v := range h.PAXRecords {
		if strings.HasPrefix(k, "SCHILY.xattr.") {
			xattrs = append(xattrs, k+"="+hex.EncodeToString([]byte(v)))
		}
	}
	sort.Strings(xattrs)
	return fmt.Sprintf("%q %c %o %d:%d %d %q %d,%d %s [%s]", name, h.Typeflag, h.Mode&0o7777,
		h.Uid, h.Gid, h.Size, h.Linkname, h.Devmajor, h.Devminor, content, strings.Join(xattrs, " ")), nil
}
