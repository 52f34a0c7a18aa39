// Command registryhosts fails when a file git tracks (outside results/)
// names the host of a package registry this machine installs from: the
// lab's files use the tools as the machine configures them and spell out no
// registry's address. The hosts are read here and now from the
// machine's own configuration and the tools' defaults (apt's sources, go
// env, npm config, pip config and help, cargo's configuration and registry
// index, Maven's settings and super POM, gem sources), so this program names
// none either.
//
//	registryhosts            check the repository around the current folder
//	registryhosts -C DIR     check the repository at DIR
//	registryhosts -hosts     print the hosts and where each came from, check nothing
//
// A host matches as a whole name: "registry.example.org" is named by
// "https://registry.example.org/x" but not by "myregistry.example.org" or
// "registry.example.org-index". Each finding is one line, FILE:LINE: HOST
// (SOURCE); the exit status is 1 if there is any.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"stacklab/formats/cli"
)

const usage = `registryhosts: fail when a tracked file names a package registry's host.

The hosts come from this machine's configuration, read at run time: apt's
sources, go env GOPROXY and GOSUMDB (and go's defaults), npm's registries
(and npm's default), pip's index URLs (and pip's default index and file
host), cargo's configuration and the registry indexes it keeps, Maven's
settings and its super POM's central repository, gem sources.

  registryhosts            check the repository around the current folder
  registryhosts -C DIR     check the repository at DIR
  registryhosts -hosts     print the hosts and where each came from

Example (a scratch commit that adds a registry URL to a README):

  $ registryhosts
  README.md:12: names <host> (npm)
  registryhosts: 1 line names a package registry's host (checked 361 tracked files against 6 hosts; results/ is not checked)
`

func main() {
	fs := flag.NewFlagSet("registryhosts", flag.ContinueOnError)
	dir := fs.String("C", ".", "the repository to check")
	list := fs.Bool("hosts", false, "print the registry hosts this machine names, and where from; check nothing")
	cli.Parse(fs, os.Args[1:], usage)
	os.Exit(run(realMachine{dir: os.TempDir()}, *dir, *list, os.Stdout, os.Stderr))
}

// run checks the repository at dir against the hosts m names (or, with
// list, prints them) and returns the exit status.
func run(m machine, dir string, list bool, stdout, stderr io.Writer) int {
	hosts, notes, ignored := machineHosts(m)
	if list {
		for _, h := range hosts {
			fmt.Fprintf(stdout, "%s\t%s\n", h.name, h.source)
		}
		for _, n := range notes {
			fmt.Fprintf(stdout, "# %s\n", n)
		}
		for _, i := range ignored {
			fmt.Fprintf(stdout, "# not a host name, not looked for: %s\n", i)
		}
		return 0
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "registryhosts: note: %s\n", n)
	}
	if len(hosts) == 0 {
		fmt.Fprintf(stderr, "registryhosts: no package registry host found in this machine's configuration (%s): nothing to check against\n", sourceNames())
		return 1
	}
	files, err := trackedFiles(dir)
	if err != nil {
		fmt.Fprintf(stderr, "registryhosts: %v\n", err)
		return 1
	}
	var found []finding
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || binary(data) {
			continue // deleted in the work tree, a symlink to a folder, or binary
		}
		found = append(found, scanText(f, data, hosts)...)
	}
	for _, f := range found {
		fmt.Fprintf(stdout, "%s:%d: names %s (%s)\n", f.path, f.line, f.host.name, f.host.source)
	}
	summary := fmt.Sprintf("checked %d tracked files against %d hosts (%s); results/ is not checked",
		len(files), len(hosts), hostList(hosts))
	if len(found) > 0 {
		fmt.Fprintf(stderr, "registryhosts: %d %s a package registry's host: write what the tool is configured with instead, see checks/README.md (%s)\n",
			len(found), plural(len(found), "line names", "lines name"), summary)
		return 1
	}
	fmt.Fprintf(stdout, "registryhosts: no tracked file names a package registry's host (%s)\n", summary)
	return 0
}

// trackedFiles lists what git tracks in dir's repository, outside results/.
func trackedFiles(dir string) ([]string, error) {
	cmd := exec.Command("git", "-C", dir, "ls-files", "-z")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %v", dir, err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" && !strings.HasPrefix(f, "results/") {
			files = append(files, f)
		}
	}
	return files, nil
}

func hostList(hosts []host) string {
	var s []string
	for _, h := range hosts {
		s = append(s, h.name+" from "+h.source)
	}
	return strings.Join(s, ", ")
}

func sourceNames() string {
	var s []string
	for _, src := range sources {
		s = append(s, src.name)
	}
	return strings.Join(s, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
