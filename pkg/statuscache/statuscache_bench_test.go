package statuscache

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSummaries is status's task reading over 10,000 files: warm is
// the agent loop's case (nothing changed since the last status), cold has
// no cache and parses every file.
func BenchmarkSummaries(b *testing.B) {
	w := cacheWorkflow(b, 10000)
	// Files written this instant are not cached yet (see Summaries).
	time.Sleep(30 * time.Millisecond)
	b.Run("warm", func(b *testing.B) {
		if _, err := w.Summaries(true, true); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if _, err := w.Summaries(true, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cold", func(b *testing.B) {
		for range b.N {
			os.Remove(filepath.Join(w.LogsDir(), StatusCacheName))
			if _, err := w.Summaries(true, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
