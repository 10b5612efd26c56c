package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestGateBoxKeys(t *testing.T) {
	c, err := Parse(file, []byte("sandbox: none\ngate_network: true\nsandbox_write: [\"~/.cache/x/\", /opt/y]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := GateBox{Sandbox: "none", Network: true, Write: []string{"~/.cache/x/", "/opt/y"}}
	if !reflect.DeepEqual(c.Gate, want) || len(c.Warnings) > 0 {
		t.Errorf("got %+v, warnings %q", c.Gate, c.Warnings)
	}
	if _, err := Parse(file, []byte("sandbox: off\n")); err == nil || !strings.Contains(err.Error(), "auto, bwrap, none") {
		t.Errorf("sandbox: off: %v", err)
	}
	if c := Default(); !reflect.DeepEqual(c.Gate, GateBox{}) {
		t.Errorf("default %+v", c.Gate)
	}
}
