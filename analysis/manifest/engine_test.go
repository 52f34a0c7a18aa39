package manifest

import "testing"

func engines(loadgenEngine, loadgenName string) map[string]Engine {
	e := Engine{Name: "a", ServerVersion: "20.10", Kernel: "6.1", NCPU: 2, MemoryBytes: 1 << 30, CgroupVersion: "1", CPUs: "0", RootDir: "/var/lib/docker"}
	g := e
	g.Engine, g.Name, g.CPUs, g.Container = loadgenEngine, loadgenName, "1", true
	if loadgenName == e.Name && loadgenEngine != "default" {
		g.RootDir = "/srv/second/docker" // a second engine on the same machine
	}
	return map[string]Engine{"app": e, "loadgen": g, "upstream": e}
}

func TestSameEngines(t *testing.T) {
	if !SameEngines(nil, nil) {
		t.Error("two runs on one local engine are not the same set")
	}
	a := engines("lab-b", "b")
	if !SameEngines(a, engines("lab-b", "b")) {
		t.Error("the same set differs")
	}
	if SameEngines(a, nil) || SameEngines(nil, a) {
		t.Error("a set of engines matches one local engine")
	}
	if SameEngines(a, engines("lab-b", "c")) {
		t.Error("the generator on another machine is the same set")
	}
	// one machine: the generator on the app's engine ("default") or on a
	// second engine there
	if SameEngines(engines("default", "a"), engines("lab-a", "a")) {
		t.Error("roles sharing an engine match roles on two engines")
	}
	if !SameEngines(engines("default", "a"), engines("default", "a")) {
		t.Error("one engine by its context name differs from itself")
	}
	m1 := &Manifest{Host: Host{Profile: "p", Engines: a}}
	m2 := &Manifest{Host: Host{Profile: "p", Engines: engines("lab-b", "c")}}
	if SameHost(m1, m2) {
		t.Error("SameHost ignores the engines")
	}
}
