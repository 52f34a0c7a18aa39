package manifest

// Confinement is what Docker applied to one container of a run, as `docker
// inspect` reported it while the container ran (written by `record
// confinement`): a published run says how its apps were confined (issue #17).
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
}
