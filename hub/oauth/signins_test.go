package oauth

import (
	"context"
	"testing"
)

// endWhenCancelled ends run once its context is cancelled, as a sign-in's
// goroutine does when its flow returns.
func endWhenCancelled(si *SignIns, source, conn string, run *SignInRun, ctx context.Context) {
	go func() {
		<-ctx.Done()
		si.End(source, conn, run)
	}()
}

func TestSignIns(t *testing.T) {
	var si SignIns
	bg := context.Background()

	offered, octx := si.Begin(bg, "gh", "work", false)
	if offered == nil || !si.Running("gh", "work") {
		t.Fatal("an offered sign-in did not begin")
	}
	if run, _ := si.Begin(bg, "gh", "work", false); run != nil {
		t.Fatal("a second offer began while one runs")
	}
	if si.Running("gh", "home") {
		t.Fatal("another connection counts as signing in")
	}
	endWhenCancelled(&si, "gh", "work", offered, octx)
	si.EndOffered(bg, "gh", "work")
	if octx.Err() == nil || si.Running("gh", "work") {
		t.Fatal("EndOffered left the offered sign-in running")
	}

	// The person's sign-in replaces an offered one, and EndOffered leaves
	// it alone.
	offered, octx = si.Begin(bg, "gh", "work", false)
	endWhenCancelled(&si, "gh", "work", offered, octx)
	person, pctx := si.Begin(bg, "gh", "work", true)
	if octx.Err() == nil || person == nil {
		t.Fatal("the person's sign-in did not replace the offered one")
	}
	si.EndOffered(bg, "gh", "work")
	if pctx.Err() != nil || !si.Running("gh", "work") {
		t.Fatal("EndOffered ended the person's sign-in")
	}
	si.End("gh", "work", person)
	if pctx.Err() == nil || si.Running("gh", "work") {
		t.Fatal("End left the sign-in running")
	}
}
