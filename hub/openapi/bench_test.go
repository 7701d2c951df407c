package openapi

import (
	"encoding/json"
	"os"
	"testing"
	"time"
)

// BenchmarkParseGitHub parses GitHub's description (13 MB, 1,223
// operations) as the parser child does, next to decoding the same bytes
// with encoding/json into generic values, the least any reading of the
// document costs: x-json-decode is the parse's time over that decode's;
// -benchmem's B/op is what one parse allocates.
func BenchmarkParseGitHub(b *testing.B) {
	loc := githubDoc(b)
	data, err := os.ReadFile(loc)
	if err != nil {
		b.Fatal(err)
	}
	var decode time.Duration
	rounds := 0
	for b.Loop() {
		b.StopTimer()
		start := time.Now()
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
		decode += time.Since(start)
		rounds++
		b.StartTimer()
		doc, err := parseOpenAPI(loc, data)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(doc.tools); n < 1200 {
			b.Fatalf("%d operations", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(decode), "x-json-decode")
}
