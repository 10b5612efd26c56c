//go:build windows

package gate

import (
	"context"
	"os"
	"os/exec"
	"syscall"
)

// shellCommand runs command through cmd.exe. cmd.exe does not split its
// command line by the C runtime rules that exec's argument quoting targets,
// so the line is handed over verbatim: /s makes cmd strip exactly the outer
// quotes added here, and /d keeps registry AutoRun commands out of the build.
func shellCommand(ctx context.Context, command string) *exec.Cmd {
	comspec := os.Getenv("ComSpec")
	if comspec == "" {
		comspec = "cmd.exe"
	}
	cmd := exec.CommandContext(ctx, comspec)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CmdLine: syscall.EscapeArg(comspec) + ` /d /s /c "` + command + `"`,
	}
	return cmd
}
