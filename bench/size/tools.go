package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// notBuildTools are the lab's tools a size study's manifest leaves out:
// the build times depend on the toolchains, not on the load generators
// or on just.
var notBuildTools = []string{"oha", "vegeta", "just"}

// toolchains are the programs the stacks' builds run, each read its own
// way ("" when it does not run).
var toolchains = []struct {
	name    string
	version func() string
}{
	{"rustc", func() string { return secondField(output("rustc", "--version")) }},
	{"cargo", func() string { return secondField(output("cargo", "--version")) }},
	{"gcc", func() string { return firstLine(output("gcc", "-dumpfullversion")) }},
	{"mvn", func() string { return mavenVersion(output("mvn", "-v", "-B")) }},
	{"java", func() string { return javaVersion(combined("java", "-version")) }},
}

// output is what name prints on stdout, whether or not it ran to the end.
func output(name string, args ...string) string {
	b, _ := exec.Command(name, args...).Output()
	return string(b)
}

// combined is what name prints on stdout and stderr.
func combined(name string, args ...string) string {
	b, _ := exec.Command(name, args...).CombinedOutput()
	return string(b)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}

// secondField: "rustc 1.83.0 (90b35a623 2024-11-26)" says 1.83.0.
func secondField(s string) string {
	if f := strings.Fields(firstLine(s)); len(f) > 1 {
		return f[1]
	}
	return ""
}

var mavenRe = regexp.MustCompile(`.*Apache Maven ([0-9.]*)`)

// mavenVersion: the first line naming Apache Maven says its version.
func mavenVersion(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if m := mavenRe.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}

// javaVersion: the first line holding "version" has it in quotes
// (openjdk version "17.0.13" 2024-10-15).
func javaVersion(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "version") {
			if f := strings.Split(l, `"`); len(f) > 1 {
				return f[1]
			}
			return ""
		}
	}
	return ""
}

// tools prints NAME=VERSION for each tool a size study's manifest records:
// of the lab's tools ("name version" lines on in, a version of "none" or
// nothing when one is missing) and of the builds' toolchains, those that
// ran and matter to a build.
func tools(in io.Reader, out io.Writer) error {
	var lines []string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for _, t := range toolchains {
		lines = append(lines, t.name+" "+t.version())
	}
	for _, l := range lines {
		name, version := nameVersion(l)
		if version == "" || version == "none" || slices.Contains(notBuildTools, name) {
			continue
		}
		fmt.Fprintf(out, "%s=%s\n", name, version)
	}
	return nil
}

// nameVersion splits a "name version" line at its first blank, as bash's
// read does: the version is the rest, blanks around it dropped.
func nameVersion(l string) (string, string) {
	l = strings.Trim(l, " \t")
	i := strings.IndexAny(l, " \t")
	if i < 0 {
		return l, ""
	}
	return l[:i], strings.TrimLeft(l[i:], " \t")
}
