package hiddentext

import (
	"strings"
	"testing"
	"time"
)

// descriptions are what describe's comments hold: an OpenAPI operation's
// English description, a Japanese one, and one that hides instructions.
var descriptions = []string{
	"Lists pull requests in a specified repository.\n\nDraft pull requests are available in public repositories with GitHub Free and GitHub Free for organizations, GitHub Pro, and legacy per-repository billing plans, and in public and private repositories with GitHub Team and GitHub Enterprise Cloud. For more information, see [GitHub's products](https://docs.github.com/github/getting-started-with-github/githubs-products) in the GitHub Help documentation.",
	"指定したリポジトリのプルリクエストを一覧表示します。下書きのプルリクエストは、GitHub Free の公開リポジトリで利用できます。詳しくは GitHub ヘルプのドキュメントを参照してください。",
	"Send a note to yourself." + strings.Repeat("\U000e0041", 90),
}

// BenchmarkForModel: what ForModel adds to a comment's text, against the
// "*/" escape describe did before it (x-escape), per description.
func BenchmarkForModel(b *testing.B) {
	const rounds = 2000
	measure := func(f func(string) string) time.Duration {
		start := time.Now()
		for range rounds {
			for _, d := range descriptions {
				_ = f(d)
			}
		}
		return time.Since(start)
	}
	escape := func(s string) string { return strings.ReplaceAll(s, "*/", "*\\/") }
	var with, ref time.Duration
	for b.Loop() {
		with += measure(func(s string) string { return escape(ForModel(s)) })
		ref += measure(escape)
	}
	n := float64(rounds * len(descriptions))
	b.ReportMetric(float64(with.Nanoseconds())/n/float64(b.N), "ns/description")
	b.ReportMetric(float64(with)/float64(ref), "x-escape")
}
