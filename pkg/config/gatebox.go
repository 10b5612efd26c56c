package config

// GateBox is config.yaml's say over the gate box that build_command, a
// task's verify and worktree_setup's command run in (DESIGN §24). A
// project without agents.yaml still runs its gates in the box, and says
// here what agents.yaml says for a project with agents: Sandbox none
// turns the box off, auto (the default) boxes where bubblewrap works,
// bwrap refuses to run a gate where it does not; Network is gate_network;
// Write is sandbox_write. Each that widens the box is trusted like a
// command.
type GateBox struct {
	Sandbox string
	Network bool
	Write   []string
}
