package main

import (
	"golang.org/x/sys/unix"

	"stacklab/formats/cpulist"
)

// affinity is the list of CPUs this process may run on, as taskset -c
// writes one ("0", "0-1,3").
func affinity() (string, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return "", err
	}
	var cpus []int
	for i := range 1024 {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpulist.Format(cpus), nil
}
