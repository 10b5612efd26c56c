package record

import (
	"os"
	"testing"

	"github.com/burl-dev/burl/pkg/repo"
)

func BenchmarkWalk(b *testing.B) {
	r, err := repo.Resolve(os.Getenv("VERIFY_BIG"))
	if err != nil {
		b.Skip(err)
	}
	for i := 0; i < b.N; i++ {
		ns := noteSet{}
		if _, err := walk(r.Git, []string{"refs/heads/main"}, "refs/notes/burl", ns); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLog(b *testing.B) {
	r, err := repo.Resolve(os.Getenv("VERIFY_BIG"))
	if err != nil {
		b.Skip(err)
	}
	st, _ := readState(r.Git, "refs/heads/burl", "")
	for i := 0; i < b.N; i++ {
		ix := newLogIndex()
		if err := ix.readLog(r.Git, st.shards); err != nil {
			b.Fatal(err)
		}
	}
}
