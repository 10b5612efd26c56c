package land

import (
	"reflect"
	"testing"
)

func TestOrderParentsFirst(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ids    []string
		parent map[string]string
		want   []string
	}{
		{"no stacks keep the queue's order", []string{"T3", "T1", "T2"}, nil, []string{"T3", "T1", "T2"}},
		{"a child before its parent goes after it", []string{"T2", "T1", "T5"}, map[string]string{"T2": "T1"}, []string{"T1", "T5", "T2"}},
		{"a chain in reverse", []string{"T3", "T2", "T1"}, map[string]string{"T3": "T2", "T2": "T1"}, []string{"T1", "T2", "T3"}},
		{"a parent outside the queue does not count", []string{"T2", "T4"}, map[string]string{"T2": "T1"}, []string{"T2", "T4"}},
		{"a cycle (a broken file) ends", []string{"T1", "T2"}, map[string]string{"T1": "T2", "T2": "T1"}, []string{"T1", "T2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := orderParentsFirst(tc.ids, tc.parent); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("orderParentsFirst(%v) = %v, want %v", tc.ids, got, tc.want)
			}
		})
	}
}
