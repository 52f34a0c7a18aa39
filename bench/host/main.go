// Command host reads a host profile (package hostprofile, the one reader)
// for the bench, which never parses a profile itself:
//
//	host profile FILE        check FILE (its keys, CPU lists, engines; the CPUs
//	                         of the roles on this machine against its online
//	                         CPUs) and print it as KEY=VALUE lines: the keys it
//	                         sets, the app's CPU mode, quota and count
//	                         (APP_CPU_*), then ROLE_* values with their
//	                         defaults
//	host check-db FILE       refuse a profile whose Postgres server role is
//	                         unset or names a CPU this host does not have
//	host roles FILE          one line per role: ROLE ENGINE CPUS CONTAINER
//	                         (ENGINE "-" for the bench's own; CONTAINER 1 when
//	                         its programs, the app's instruments for the app,
//	                         run in containers there)
//	host check-engine FILE ROLE --info FILE
//	                         refuse a role whose CPUs its engine (docker info
//	                         JSON) does not have
//
// A bad profile is one line naming the file and the key, exit 2.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"stacklab/analysis/hostprofile"
	"stacklab/analysis/manifest"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const onlineFile = "/sys/devices/system/cpu/online"

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, "usage: host profile|roles|check-db|check-engine FILE ... (see bench/host/main.go)")
		return 2
	}
	p, err := hostprofile.Read(args[1])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	switch args[0] {
	case "profile":
		online, err := os.ReadFile(onlineFile)
		if err != nil {
			fmt.Fprintf(stderr, "host: %v\n", err)
			return 1
		}
		if err := p.CheckLocalCPUs(string(online)); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		cpu, err := p.AppCPU()
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		fmt.Fprint(stdout, p.Lines())
		fmt.Fprintf(stdout, "APP_CPU_MODE=%s\nAPP_CPU_QUOTA=%s\nAPP_CPU_COUNT=%d\n", cpu.Mode, cpu.Quota, cpu.Count)
		app, up, gen := p.Role("app"), p.Role("upstream"), p.Role("loadgen")
		engines := 0
		if p.Engines() {
			engines = 1
		}
		upEngine, appEngine := "", ""
		if p.Remote("upstream") {
			upEngine = up.Engine
		}
		if p.Remote("app") {
			appEngine = app.Engine
		}
		fmt.Fprintf(stdout, "ROLE_APP_ADDR=%s\nROLE_UPSTREAM_ADDR=%s\nROLE_LOADGEN_ENGINE=%s\nROLE_UPSTREAM_ENGINE=%s\nROLE_APP_ENGINE=%s\nROLE_CEILING_ADDR=%s\nROLE_SAMPLER_CPUS=%s\nROLE_ENGINES=%d\n",
			app.Addr, up.Addr, gen.Engine, upEngine, appEngine, p.CeilingAddr(), p.SamplerCPUs(), engines)
	case "roles":
		for _, name := range hostprofile.Roles {
			r := p.Role(name)
			e, container := r.Engine, 0
			if e == "" {
				e = "-"
			}
			if (name == "loadgen" && r.Engine != "") || (name == "app" && p.Remote("app")) {
				container = 1
			}
			fmt.Fprintf(stdout, "%s %s %s %d\n", name, e, r.CPUs, container)
		}
	case "check-db":
		online, err := os.ReadFile(onlineFile)
		if err != nil {
			fmt.Fprintf(stderr, "host: %v\n", err)
			return 1
		}
		if err := p.CheckDB(string(online)); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	case "check-engine":
		fl := flag.NewFlagSet("host check-engine", flag.ContinueOnError)
		fl.SetOutput(stderr)
		info := fl.String("info", "", "docker info --format '{{json .}}' on the role's engine")
		if len(args) < 3 {
			fmt.Fprintln(stderr, "host check-engine: which role?")
			return 2
		}
		if err := fl.Parse(args[3:]); err != nil || *info == "" {
			fmt.Fprintln(stderr, "host check-engine: --info FILE is required")
			return 2
		}
		b, err := os.ReadFile(*info)
		var di manifest.DockerInfo
		if err == nil {
			err = json.Unmarshal(b, &di)
		}
		if err != nil {
			fmt.Fprintf(stderr, "host check-engine: %s: %v\n", *info, err)
			return 1
		}
		if err := p.CheckEngineCPUs(args[2], di.NCPU); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	default:
		fmt.Fprintf(stderr, "host: unknown subcommand %q (profile, roles, check-db, check-engine)\n", args[0])
		return 2
	}
	return 0
}

// q quotes a value for bash.
