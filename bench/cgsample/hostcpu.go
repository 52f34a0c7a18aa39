package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"stacklab/formats/cpulist"
	"stacklab/formats/timeline"
)

// userHz is the unit of /proc/stat: USER_HZ, 100 on every Linux ABI the
// lab runs on.
const userHz = 100

// cpuSets are the named CPU sets (--cpuset NAME=LIST) whose host-wide
// time each sample records.
type cpuSets map[string][]int

func (c cpuSets) String() string { return fmt.Sprint(map[string][]int(c)) }

// Set parses one NAME=LIST, LIST as taskset takes it: "0", "1-3", "0,2".
func (c cpuSets) Set(v string) error {
	name, list, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("%q: want NAME=CPUS, e.g. app=0", v)
	}
	cpus, err := cpulist.Parse(list)
	if err != nil {
		return fmt.Errorf("%q: %v", v, err)
	}
	c[name] = cpus
	return nil
}

// procStat reads each CPU's line of /proc/stat: user nice system idle
// iowait irq softirq steal (guest time is already in user).
func procStat(procRoot string) (map[int][8]uint64, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, "stat"))
	if err != nil {
		return nil, err
	}
	out := map[int][8]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 9 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		n, err := strconv.Atoi(f[0][3:])
		if err != nil {
			continue
		}
		var v [8]uint64
		for i := range v {
			if v[i], err = strconv.ParseUint(f[i+1], 10, 64); err != nil {
				return nil, fmt.Errorf("%s: cpu%d: field %d: %v", filepath.Join(procRoot, "stat"), n, i+1, err)
			}
		}
		out[n] = v
	}
	return out, nil
}

// setTimes is each set's time from one reading of /proc/stat; a CPU the
// host does not have is an error (a typo in the profile).
func setTimes(sets cpuSets, stat map[int][8]uint64) (map[string]timeline.CPUTime, error) {
	out := map[string]timeline.CPUTime{}
	const ms = 1000 / userHz
	for name, cpus := range sets {
		var t timeline.CPUTime
		for _, c := range cpus {
			v, ok := stat[c]
			if !ok {
				return nil, fmt.Errorf("--cpuset %s: this host has no CPU %d", name, c)
			}
			t.BusyMs += (v[0] + v[1] + v[2]) * ms
			t.IrqMs += (v[5] + v[6]) * ms
			t.StealMs += v[7] * ms
			for _, x := range v {
				t.TotalMs += x * ms
			}
		}
		out[name] = t
	}
	return out, nil
}

// threadsFile is the file that lists the threads of pid's cgroup: cgroup
// v1's cpu controller "tasks", or v2's "cgroup.threads".
func threadsFile(procRoot, cgroupRoot string, pid int) (string, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return "", err
	}
	var v2 string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			if ctl == "cpu" {
				for _, dir := range []string{parts[1], "cpu"} {
					p := filepath.Join(cgroupRoot, dir, parts[2], "tasks")
					if _, err := os.Stat(p); err == nil {
						return p, nil
					}
				}
			}
		}
	}
	if v2 != "" {
		p := filepath.Join(cgroupRoot, v2, "cgroup.threads")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("pid %d: no cgroup thread list found", pid)
}

// runDelay sums the run-queue wait (schedstat's second field, ns) of every
// thread the list names; a thread gone between the two reads is skipped.
func runDelay(procRoot, threads string) (uint64, error) {
	b, err := os.ReadFile(threads)
	if err != nil {
		return 0, err
	}
	var sum uint64
	for _, tid := range strings.Fields(string(b)) {
		s, err := os.ReadFile(filepath.Join(procRoot, tid, "schedstat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(s))
		if len(f) < 2 {
			continue
		}
		if v, err := strconv.ParseUint(f[1], 10, 64); err == nil {
			sum += v
		}
	}
	return sum, nil
}

// hostReader adds the host-side figures to each sample: the CPU sets' time
// and the group's run-queue wait, each where it can be read.
type hostReader struct {
	procRoot string
	sets     cpuSets
	threads  string // "" when the group's threads cannot be listed
}

func (h hostReader) add(x *timeline.Sample) error {
	if len(h.sets) > 0 {
		stat, err := procStat(h.procRoot)
		if err != nil {
			return err
		}
		if x.CPUSets, err = setTimes(h.sets, stat); err != nil {
			return err
		}
	}
	if h.threads != "" {
		if d, err := runDelay(h.procRoot, h.threads); err == nil {
			x.RunDelayNs = &d
		}
	}
	return nil
}
