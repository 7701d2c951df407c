package quietlocale

import "testing"

func TestNeedsLanguage(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"LANG": "C.UTF-8"}, true},
		{map[string]string{"LANG": "POSIX.UTF-8"}, true},
		{map[string]string{"LC_ALL": "C.utf8", "LANG": "de_DE.UTF-8"}, true},
		{map[string]string{"LANG": "C"}, false},
		{map[string]string{"LANG": "POSIX"}, false},
		{map[string]string{"LANG": "en_US.UTF-8"}, false},
		{map[string]string{"LC_ALL": "de_DE.UTF-8", "LANG": "C.UTF-8"}, false},
		{map[string]string{"LANG": "C.UTF-8", "LANGUAGE": "fr"}, false},
		{map[string]string{}, false},
	}
	for _, tt := range tests {
		if got := needsLanguage(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("%v: got %v, want %v", tt.env, got, tt.want)
		}
	}
}
