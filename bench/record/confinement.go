package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"stacklab/analysis/manifest"
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
// stdin) under NAME in the manifest. A later call for NAME replaces it.
func confinement(m *manifest.Manifest, args []string) error {
	if len(args) < 1 || args[0] == "" || args[0][0] == '-' {
		return fmt.Errorf("want NAME (a stack, or upstream)")
	}
	fl := flag.NewFlagSet("record confinement", flag.ContinueOnError)
	file := fl.String("inspect", "", "docker inspect output of the container (- for stdin)")
	if err := fl.Parse(args[1:]); err != nil {
		return err
	}
	if *file == "" {
		return fmt.Errorf("--inspect FILE is required")
	}
	var b []byte
	var err error
	if *file == "-" {
		b, err = io.ReadAll(os.Stdin)
	} else {
		b, err = os.ReadFile(*file)
	}
	if err != nil {
		return err
	}
	c, err := parseInspect(b)
	if err != nil {
		return fmt.Errorf("%s: %w", *file, err)
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

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
