package attempts

import (
	"testing"
	"time"
)

func TestBackoffDoublesUpToItsLimit(t *testing.T) {
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		failed int
		base   time.Duration
		want   time.Duration
	}{
		{0, 30 * time.Second, 0},
		{1, 30 * time.Second, 30 * time.Second},
		{2, 30 * time.Second, time.Minute},
		{3, 30 * time.Second, 2 * time.Minute},
		{5, 30 * time.Second, 8 * time.Minute},
		{6, 30 * time.Second, 10 * time.Minute},
		{60, 30 * time.Second, 10 * time.Minute},
		{3, 0, 0},
		// A base longer than the limit is its own limit.
		{4, 20 * time.Minute, 20 * time.Minute},
	} {
		h := Rounds{Failed: c.failed, last: at}
		if got := h.Wait(c.base, at); got != c.want {
			t.Errorf("%d failed round(s), retry_backoff %s: waits %s, want %s", c.failed, c.base, got, c.want)
		}
	}
	h := Rounds{Failed: 2, last: at}
	if got := h.Wait(time.Second, at.Add(1500*time.Millisecond)); got != 500*time.Millisecond {
		t.Errorf("the wait counts from the last failure: %s left, want 500ms", got)
	}
	h.Fail(at.Add(time.Minute))
	if got := h.Wait(time.Second, at.Add(time.Minute)); got != 4*time.Second {
		t.Errorf("a third failure waits 4s, not %s", got)
	}
}
