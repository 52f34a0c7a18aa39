package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"stacklab/analysis/manifest"
)

// engine adds one role's engine to the engines file at path (created if
// missing): the bench gathers every role's before it starts anything, and
// record start puts the file into the manifest.
func engine(path string, args []string) error {
	if len(args) < 1 {
		return fmt.Errorf("which role? (app, loadgen, upstream)")
	}
	role := args[0]
	fl := flag.NewFlagSet("record engine", flag.ContinueOnError)
	name := fl.String("engine", "", "the Docker context or DOCKER_HOST the profile names (\"\": the bench's own)")
	cpus := fl.String("cpus", "", "the role's CPU list there")
	info := fl.String("info", "", "docker info --format '{{json .}}' on that engine")
	machine := fl.String("machine", "", "bench/loadrun fingerprint's output on that engine")
	container := fl.Bool("container", false, "the role's programs run in containers on that engine")
	if err := fl.Parse(args[1:]); err != nil {
		return err
	}
	if *info == "" || *machine == "" {
		return fmt.Errorf("--info and --machine are required")
	}
	var di manifest.DockerInfo
	if err := readJSON(*info, &di); err != nil {
		return err
	}
	var fp manifest.Fingerprint
	if err := readJSON(*machine, &fp); err != nil {
		return err
	}
	engines := map[string]manifest.Engine{}
	if _, err := os.Stat(path); err == nil {
		if engines, err = manifest.ReadEngines(path); err != nil {
			return err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	engines[role] = manifest.Engine{
		Engine: *name, CPUs: *cpus, Container: *container,
		Name: di.Name, ServerVersion: di.ServerVersion, Kernel: di.KernelVersion, OS: di.OperatingSystem,
		NCPU: di.NCPU, MemoryBytes: di.MemTotal, CgroupVersion: di.CgroupVersion, CgroupDriver: di.CgroupDriver, RootDir: di.DockerRootDir,
		Machine: fp,
	}
	b, err := json.MarshalIndent(engines, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: not valid JSON: %v", path, err)
	}
	return nil
}
