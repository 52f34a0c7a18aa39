// The pinned scc (versions.json "scc"), the size study's code counter. A
// module of its own so that scripts/bootstrap builds it in module mode:
// `go install github.com/boyter/scc/v3@v3.5.0` is refused by this
// machine's module proxy ("loading deprecation"), `go build` here is not.
module stacklab/tools/scc

go 1.26

require github.com/boyter/scc/v3 v3.5.0

require (
	github.com/boyter/gocodewalker v1.4.0 // indirect
	github.com/danwakefield/fnmatch v0.0.0-20160403171240-cbb64ac3d964 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/mattn/go-runewidth v0.0.16 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.2 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/spf13/cobra v1.8.1 // indirect
	github.com/spf13/pflag v1.0.6 // indirect
	golang.org/x/crypto v0.33.0 // indirect
	golang.org/x/sync v0.11.0 // indirect
	golang.org/x/sys v0.30.0 // indirect
	golang.org/x/text v0.22.0 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
)
