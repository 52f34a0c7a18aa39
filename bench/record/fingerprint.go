package main

import (
	"stacklab/analysis/manifest"
	"stacklab/bench/hostfp"
)

// fingerprint describes the host a run was measured on (package hostfp).
func fingerprint() (manifest.Fingerprint, error) { return hostfp.Read() }
