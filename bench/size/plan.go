package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"stacklab/analysis/sizes"
)

// sizePlan is what one run of a size study does for the stack in
// stackDir, as KEY=VALUE pairs in the order printed (size plan): which
// measures it takes and how its builds run. scripts/lib/bench-size.sh
// runs them; out is the stack's folder of the run's raw files.
func sizePlan(stackDir, out string, run int, build bool, benchID, work string) ([][2]string, error) {
	env, _, err := stackEnv(stackDir)
	if err != nil {
		return nil, err
	}
	name := stackName(stackDir)
	// The app's code and its dependencies are counted once, in run 1; with
	// builds, the lock data is read from the copy after the clean build,
	// where packages.txt is the image's own list.
	deps := ""
	switch {
	case run == 1 && !build:
		deps = "stack"
	case run == 1:
		deps = "copy"
	}
	var copyDir, tag, log, gocache, touch, touchFault, binary, depsSrc, depsSCC, depsCode string
	if build {
		n := strconv.Itoa(run)
		copyDir = work + "/copy-" + name + "-" + n
		tag = "stacklab-size/" + name + ":" + benchID + "-run-" + n
		log = work + "/" + name + "-" + n + ".build.log"
		// A Go app's clean build starts from an empty Go build cache (its
		// rebuild from what the clean build left there); the other stacks
		// keep the host's, which only the packer (bench/mkimage) uses.
		if env["LANGUAGE"] == "go" {
			gocache = copyDir + "/.gocache"
		}
		touch, binary = env["SIZE_TOUCH"], env["SIZE_BINARY"]
		if touch == "" {
			touchFault = name + ": stack.env states no SIZE_TOUCH, the handler file the rebuild changes by one line (stacks/README.md)"
		}
		depsSrc = env["SIZE_DEPS_SRC"]
		if dirs := strings.Fields(depsSrc); len(dirs) > 0 {
			depsSCC = strings.Join(append(append([]string{}, sccDepsArgs...), dirs...), " ")
			depsCode = out + "/" + sizes.DepsCodeFile
		}
	}
	return [][2]string{
		{"SIZE_CODE", bit(run == 1)}, {"SIZE_DEPS", deps}, {"SIZE_BUILDS", bit(build)},
		{"SIZE_COPY", copyDir}, {"SIZE_TAG", tag}, {"SIZE_LOG", log}, {"SIZE_GOCACHE", gocache},
		{"SIZE_TOUCH", touch}, {"SIZE_TOUCH_FAULT", touchFault}, {"SIZE_BINARY", binary},
		{"SIZE_DEPS_SRC", depsSrc}, {"SIZE_DEPS_SCC", depsSCC}, {"SIZE_DEPS_CODE", depsCode},
	}, nil
}

func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// planCmd: size plan STACK_DIR OUT --run N --build 0|1 [--bench-id ID
// --work DIR]
func planCmd(args []string, stdout io.Writer) error {
	if len(args) < 2 {
		return fmt.Errorf("want STACK_DIR OUT")
	}
	fl := flag.NewFlagSet("size plan", flag.ContinueOnError)
	run := fl.Int("run", 0, "the run (1, 2, ...)")
	build := fl.Int("build", 0, "1 when the study builds images (its [size] build)")
	benchID := fl.String("bench-id", "", "the bench's id, in the builds' tag")
	work := fl.String("work", "", "the bench's scratch folder")
	if err := fl.Parse(args[2:]); err != nil {
		return err
	}
	if *run < 1 || *build != 0 && *build != 1 {
		return fmt.Errorf("want --run N (1 or more) and --build 0 or 1")
	}
	if *build == 1 && (*benchID == "" || *work == "") {
		return fmt.Errorf("--build 1 wants --bench-id and --work")
	}
	p, err := sizePlan(args[0], args[1], *run, *build == 1, *benchID, *work)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, kv := range p {
		if strings.ContainsAny(kv[1], "\n\r") {
			return fmt.Errorf("%s: %s would span lines: %q", args[0], kv[0], kv[1])
		}
		b.WriteString(kv[0] + "=" + kv[1] + "\n")
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}
