package render

import (
	"strings"
	"testing"

	"stacklab/analysis/stat"
	"stacklab/analysis/summary"
)

// A row faster than the stub makes the headroom a floor, and the section
// says so; with every row under it, nothing is said.
func TestHeadroomSaysWhenARowPassedIt(t *testing.T) {
	hr := &summary.Headroom{ReqPerSec: stat.Range{N: 1, Median: 100000, Min: 100000, Max: 100000}, Connections: 32, GeneratorShare: 0.97, Limited: true, Threshold: 0.9,
		Rows: []summary.HeadroomRow{{Stack: "c", Case: "json", ReqPerSec: 117000, Share: 1.17, GeneratorShare: 0.97}, {Stack: "go", Case: "json", ReqPerSec: 76000, Share: 0.76, GeneratorShare: 0.89}}}
	text := func() string {
		var b strings.Builder
		for _, bl := range headroomBlocks(&summary.Summary{Headroom: hr}) {
			b.WriteString(bl.text + "\n")
		}
		return b.String()
	}
	if s := text(); !strings.Contains(s, "One row went past it: the stub is not the fastest server this generator met, so the figure is a floor") {
		t.Errorf("a row past the headroom:\n%s", s)
	}
	hr.Rows = hr.Rows[1:]
	if s := text(); strings.Contains(s, "went past it") {
		t.Errorf("no row past the headroom:\n%s", s)
	}
}

// The network path check, when a run made one, is said after the table.
func TestHeadroomGivesTheNetworkPath(t *testing.T) {
	hr := &summary.Headroom{ReqPerSec: stat.Range{N: 2, Median: 100000, Min: 98000, Max: 102000}, Connections: 32,
		NetPath: &summary.NetPath{Addr: "127.0.0.1:8080", RTTP50Us: stat.Range{N: 2, Median: 31, Min: 30, Max: 32}, RTTP99Us: stat.Range{N: 2, Median: 80, Min: 80, Max: 80},
			StreamBytesPerS: stat.Range{N: 2, Median: 1 << 30, Min: 1 << 30, Max: 1 << 30}}}
	var b strings.Builder
	for _, bl := range headroomBlocks(&summary.Summary{Headroom: hr}) {
		b.WriteString(bl.text + "\n")
	}
	want := "The raw network path to the app's address (127.0.0.1:8080; bench/netpath: an echo in the app's place, from the generator's CPUs): one byte there and back in **31.0 µs (30.0 µs–32.0 µs)** (p99 80.0 µs), and one connection streamed **1.00 GiB/s** each way (median (min–max) of 2 runs)."
	if !strings.Contains(b.String(), want) {
		t.Errorf("got\n%s\nwant a line\n%s", b.String(), want)
	}
	hr.NetPath = nil
	b.Reset()
	for _, bl := range headroomBlocks(&summary.Summary{Headroom: hr}) {
		b.WriteString(bl.text + "\n")
	}
	if strings.Contains(b.String(), "network path") {
		t.Errorf("no check, yet:\n%s", b.String())
	}
}
