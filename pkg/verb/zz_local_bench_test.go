package verb

import (
	"os"
	"runtime/debug"
	"testing"
)

func BenchmarkLocalStatusJSON(b *testing.B) {
	dir := os.Getenv("BENCH_DIR")
	if dir == "" {
		b.Skip()
	}
	debug.SetMemoryLimit(20 << 20)
	for _, args := range [][]string{{"--json"}, nil, {"--json", "--open"}} {
		b.Run(func() string { if args == nil { return "human" }; return args[len(args)-1] }(), func(b *testing.B) {
			benchVerb(b, dir, "status", args...)
			b.ResetTimer()
			for range b.N {
				benchVerb(b, dir, "status", args...)
			}
		})
	}
}
