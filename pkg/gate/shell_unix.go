//go:build !windows

package gate

import (
	"context"
	"os/exec"
)

// shellCommand runs command through sh, so that build_command may use the
// pipes, redirections and && chains users write in config files.
func shellCommand(ctx context.Context, command string) *exec.Cmd {
	return exec.CommandContext(ctx, "sh", "-c", command)
}
