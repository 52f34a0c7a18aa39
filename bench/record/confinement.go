package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"stacklab/analysis/manifest"
	"stacklab/formats/nativegroup"
)

// inspected is the part of `docker inspect CONTAINER` (a JSON array of one
// object) that says how the container is confined.
type inspected struct {
	Config struct {
		User string `json:"User"`
	} `json:"Config"`
	HostConfig struct {
		CapDrop        []string          `json:"CapDrop"`
		CapAdd         []string          `json:"CapAdd"`
		SecurityOpt    []string          `json:"SecurityOpt"`
		Privileged     bool              `json:"Privileged"`
		ReadonlyRootfs bool              `json:"ReadonlyRootfs"`
		PidsLimit      *int64            `json:"PidsLimit"`
		NetworkMode    string            `json:"NetworkMode"`
		Tmpfs          map[string]string `json:"Tmpfs"`
	} `json:"HostConfig"`
	Mounts []struct {
		Type        string `json:"Type"`
		Destination string `json:"Destination"`
		RW          bool   `json:"RW"`
	} `json:"Mounts"`
}

// confinement: `record confinement DIR NAME --inspect FILE` stores what
// Docker applied to a container (FILE holds `docker inspect` of it; - is
// stdin) under NAME in the manifest; with --native FILE instead (native
// start's line, formats/nativegroup), a native row's: its group, and the
// process as the lab's uid with nothing else of Docker's. A later call for
// NAME replaces it.
func confinement(m *manifest.Manifest, args []string) error {
	if len(args) < 1 || args[0] == "" || args[0][0] == '-' {
		return fmt.Errorf("want NAME (a stack, or upstream)")
	}
	fl := flag.NewFlagSet("record confinement", flag.ContinueOnError)
	file := fl.String("inspect", "", "docker inspect output of the container (- for stdin)")
	native := fl.String("native", "", "native start's line for a native row (- for stdin)")
	user := fl.String("user", "", "with --native: the uid:gid the process runs as")
	if err := fl.Parse(args[1:]); err != nil {
		return err
	}
	if (*file == "") == (*native == "") {
		return fmt.Errorf("one of --inspect FILE and --native FILE is required")
	}
	if *native != "" && *user == "" {
		return fmt.Errorf("--native needs --user UID:GID (what the process runs as)")
	}
	from := *file + *native
	var b []byte
	var err error
	if from == "-" {
		b, err = io.ReadAll(os.Stdin)
	} else {
		b, err = os.ReadFile(from)
	}
	if err != nil {
		return err
	}
	var c manifest.Confinement
	if *native != "" {
		c, err = parseNative(b, *user)
	} else {
		c, err = parseInspect(b)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	if m.Confinement == nil {
		m.Confinement = map[string]manifest.Confinement{}
	}
	m.Confinement[args[0]] = c
	return nil
}

// parseInspect turns docker inspect's output for one container into the
// manifest's Confinement. Lists are never null, so a reader sees [] for
// "none" rather than a missing value.
func parseInspect(b []byte) (manifest.Confinement, error) {
	var all []inspected
	if err := json.Unmarshal(b, &all); err != nil {
		return manifest.Confinement{}, fmt.Errorf("not docker inspect output: %v", err)
	}
	if len(all) != 1 {
		return manifest.Confinement{}, fmt.Errorf("want docker inspect of one container, got %d objects", len(all))
	}
	in := all[0]
	h := in.HostConfig
	c := manifest.Confinement{
		User:           in.Config.User,
		CapDrop:        nonNil(h.CapDrop),
		CapAdd:         nonNil(h.CapAdd),
		SecurityOpt:    nonNil(h.SecurityOpt),
		Privileged:     h.Privileged,
		ReadOnlyRootfs: h.ReadonlyRootfs,
		NetworkMode:    h.NetworkMode,
		Tmpfs:          h.Tmpfs,
		WritableMounts: []string{},
	}
	if c.Tmpfs == nil {
		c.Tmpfs = map[string]string{}
	}
	// Docker reports no limit as null, 0 or -1.
	if h.PidsLimit != nil && *h.PidsLimit > 0 {
		c.PidsLimit = *h.PidsLimit
	}
	for _, mt := range in.Mounts {
		if mt.RW && mt.Type != "tmpfs" {
			c.WritableMounts = append(c.WritableMounts, mt.Destination)
		}
	}
	sort.Strings(c.WritableMounts)
	return c, nil
}

// parseNative turns native start's line into a native row's Confinement:
// the group, its pid limit, the uid:gid, the host's network, and none of
// the container's other confinement (no capability list, security option,
// read-only root or tmpfs: the process is a host process of the lab's uid).
func parseNative(b []byte, user string) (manifest.Confinement, error) {
	st, err := nativegroup.Parse(b)
	if err != nil {
		return manifest.Confinement{}, err
	}
	g := st.Group
	return manifest.Confinement{
		User: user, CapDrop: []string{}, CapAdd: []string{}, SecurityOpt: []string{},
		PidsLimit: g.Limits.Pids, NetworkMode: "host", Tmpfs: map[string]string{}, WritableMounts: []string{},
		Cgroup: &g,
	}, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
