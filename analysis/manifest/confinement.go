package manifest

import "stacklab/formats/nativegroup"

// Confinement is how one app of a run was confined: what Docker applied to
// its container, as `docker inspect` reported it while it ran, or for a
// native row the lab's cgroup and what the process ran as (both written by
// `record confinement`): a published run says how its apps were confined.
// An empty User means the image's default user, root unless the image sets one.
type Confinement struct {
	User           string            `json:"user"`
	CapDrop        []string          `json:"cap_drop"`
	CapAdd         []string          `json:"cap_add"`
	SecurityOpt    []string          `json:"security_opt"`
	Privileged     bool              `json:"privileged"`
	ReadOnlyRootfs bool              `json:"read_only_rootfs"`
	PidsLimit      int64             `json:"pids_limit"` // 0: no limit
	NetworkMode    string            `json:"network_mode"`
	Tmpfs          map[string]string `json:"tmpfs"`           // mount point -> options
	WritableMounts []string          `json:"writable_mounts"` // destinations of read-write binds and volumes, sorted
	// Cgroup is a native row's group (bench/native made it): its path, the
	// host's cgroup mode, the library, its limits; nil for a container.
	Cgroup *nativegroup.Group `json:"cgroup,omitempty"`
}
