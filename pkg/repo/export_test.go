package repo

// For seed_test.go, in package repo_test: it pins the configuration with
// runguard, which imports this package.

// BootstrapKeys are the keys resolve asks git for.
const BootstrapKeys = bootstrapKeys

// KeptBootstrap is the answer kept for the repository of dir under this
// process's environment.
func KeptBootstrap(dir string) (string, bool) {
	d := found{}
	d.common, d.top, d.ok = discover(dir)
	return keptBootstrap(d, bootstrapKey(d))
}
