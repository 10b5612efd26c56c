package watch

import (
	"fmt"
	"io"
	"os"
)

// capLog keeps a finished run's log within max bytes (log_max_bytes,
// DESIGN §16): its first and last halves, with a line between saying how
// much was cut. An agent's 60 MB of output is then not a 60 MB file on
// every machine that keeps its logs. The run is over and its processes are
// gone, so nothing writes the file meanwhile; the tail is copied down in
// place, chunk by chunk, without holding it in memory. It works on the
// descriptor watch opened before the run (DESIGN §19), never on the path,
// where a run could have left a link to something else.
func capLog(f *os.File, max int64) error {
	st, err := f.Stat()
	if err != nil || st.Size() <= max {
		return err
	}
	half := max / 2
	marker := []byte(fmt.Sprintf("\n[burl: %d bytes of this run's output were cut here: log_max_bytes is %d]\n", st.Size()-2*half, max))
	if _, err := f.WriteAt(marker, half); err != nil {
		return err
	}
	src, dst := st.Size()-half, half+int64(len(marker))
	buf := make([]byte, 64<<10)
	for src < st.Size() {
		n, err := f.ReadAt(buf, src)
		if n > 0 {
			if _, werr := f.WriteAt(buf[:n], dst); werr != nil {
				return werr
			}
			src, dst = src+int64(n), dst+int64(n)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	return f.Truncate(dst)
}
