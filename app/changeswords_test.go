package main

import (
	"testing"

	"capabilities.sh/capabilities/hub"
)

func TestChangesStatus(t *testing.T) {
	at := func(addrs ...string) []hub.ToolChangeInfo {
		var out []hub.ToolChangeInfo
		for _, a := range addrs {
			out = append(out, hub.ToolChangeInfo{Address: a})
		}
		return out
	}
	for _, tc := range []struct {
		changes []hub.ToolChangeInfo
		want    string
	}{
		{at("a.b"), "1 tool definition changed since you accepted it: its calls ask until you accept it"},
		{at("a.b", "a.c"), "2 tool definitions changed since you accepted them: their calls ask until you accept them"},
		{at("skill:d.x"), "1 skill changed since you accepted it: the model is told so until you accept it"},
		{at("skill:d.x", "skill:d.y"), "2 skills changed since you accepted them: the model is told so until you accept them"},
		{at("a.b", "skill:d.x", "skill:d.y"), "1 tool definition and 2 skills changed since you accepted them: the tools' calls ask and the model is told of the skills until you accept them"},
	} {
		if got := changesStatus(tc.changes); got != tc.want {
			t.Errorf("changesStatus(%v) = %q, want %q", tc.changes, got, tc.want)
		}
	}
}
