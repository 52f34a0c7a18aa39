module stacklab

go 1.26.8

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/containerd/cgroups/v3 v3.1.3 // indirect
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
	github.com/moby/sys/userns v0.1.0 // indirect
	github.com/prometheus/procfs v0.23.0 // indirect
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da // indirect
	golang.org/x/sys v0.49.0 // indirect
)
