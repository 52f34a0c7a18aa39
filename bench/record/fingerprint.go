package main

import (
	"stacklab/analysis/hostfp"
	"stacklab/analysis/manifest"
)

// fingerprint describes the host a run was measured on (package hostfp).
func fingerprint() (manifest.Fingerprint, error) { return hostfp.Read() }
