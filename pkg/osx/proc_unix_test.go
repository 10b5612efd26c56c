//go:build linux

package osx

import (
	"os/exec"
	"testing"
	"time"
)

// A child that exited and was not waited for is a zombie: it answers
// signal 0, but it is no longer running.
func TestProcessAliveCallsAZombieDead(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for ProcessAlive(cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("an exited, unreaped child still counts as alive")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
