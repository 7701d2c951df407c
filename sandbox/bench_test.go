package sandbox

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// rawRun is the reference for the driver's overhead: a bare goja runtime
// with the prelude, running the same compiled code, with no event loop,
// limits, watcher or outcome.
func rawRun(b *testing.B, eng *engine, code string) {
	prog, err := goja.Compile(guestFile, wrapGuest(code), true)
	if err != nil {
		b.Fatal(err)
	}
	r, err := newShell(eng, testNamespaces) // goja.New() and the prelude
	if err != nil {
		b.Fatal(err)
	}
	r.begin(context.Background(), Request{Namespaces: testNamespaces, Host: &testHost{}}, DefaultLimits())
	defer r.stop()
	if err := r.adapt(); err != nil {
		b.Fatal(err)
	}
	v, err := r.rt.RunProgram(prog)
	if err != nil {
		b.Fatal(err)
	}
	fn, _ := goja.AssertFunction(v)
	p, err := fn(goja.Undefined())
	if err != nil {
		b.Fatal(err)
	}
	if p.Export().(*goja.Promise).Result().ToInteger() != 1 {
		b.Fatal("wrong result")
	}
}

// settle waits, untimed, until the in-process driver has its prepared
// runtimes and the garbage of preparing them is collected: what a run
// finds when runs do not follow each other back to back (a model takes
// seconds between two executes).
func settle(d Driver) {
	in := d.(*inProcess)
	for len(in.warm) < cap(in.warm) {
		time.Sleep(100 * time.Microsecond)
	}
	runtime.GC()
}

// settlePool waits, untimed, until every worker of the pool is idle: each
// has its runtime prepared.
func settlePool(d Driver) {
	p := d.(*pool)
	for len(p.idle) < p.opts.Size {
		time.Sleep(100 * time.Microsecond)
	}
}

// BenchmarkReturn1 compares `return 1` through each driver with the raw
// goja reference, measured in the same run. "inprocess" runs back to back,
// so the driver can prepare runtimes no faster than it uses them; the
// other cases measure one run starting on a ready driver. The ratio
// sub-benchmark alternates raw and in-process runs and reports
// inprocess/raw as x-raw; the pool cases alternate pool and in-process
// runs and report the difference.
func BenchmarkReturn1(b *testing.B) {
	eng, err := loadEngine()
	if err != nil {
		b.Fatal(err)
	}
	in := NewInProcess()
	defer in.Close()
	req := request(b, "return 1", nil, Limits{})
	in.Run(context.Background(), req) // the driver prepares runtimes once it has served a run
	b.Run("raw-goja", func(b *testing.B) {
		for b.Loop() {
			rawRun(b, eng, "return 1")
		}
	})
	b.Run("inprocess-back-to-back", func(b *testing.B) {
		for b.Loop() {
			if o := in.Run(context.Background(), req); string(o.Result) != "1" {
				b.Fatal(describeOutcome(o))
			}
		}
	})
	b.Run("ratio", func(b *testing.B) {
		var raw, drv time.Duration
		for b.Loop() {
			settle(in)
			t0 := time.Now()
			rawRun(b, eng, "return 1")
			t1 := time.Now()
			settle(in)
			t2 := time.Now()
			in.Run(context.Background(), req)
			drv += time.Since(t2)
			raw += t1.Sub(t0)
		}
		b.ReportMetric(float64(raw)/float64(b.N)/1e3, "us-raw")
		b.ReportMetric(float64(drv)/float64(b.N)/1e3, "us-inprocess")
		b.ReportMetric(float64(drv)/float64(raw), "x-raw")
	})
	poolCase := func(b *testing.B, opts PoolOptions) {
		p, err := NewPool(opts)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		var pool, inproc time.Duration
		for b.Loop() {
			settlePool(p)
			settle(in)
			t0 := time.Now()
			if o := p.Run(context.Background(), req); string(o.Result) != "1" {
				b.Fatal(describeOutcome(o))
			}
			t1 := time.Now()
			settlePool(p)
			settle(in)
			t2 := time.Now()
			in.Run(context.Background(), req)
			pool += t1.Sub(t0)
			inproc += time.Since(t2)
		}
		b.ReportMetric(float64(pool)/float64(b.N)/1e3, "us-pool")
		b.ReportMetric(float64(pool-inproc)/float64(b.N)/1e3, "us-over-inprocess")
	}
	b.Run("pool-reused-worker", func(b *testing.B) {
		opts := workerOptions("serve", 1)
		opts.RunsPerWorker = 1 << 30
		poolCase(b, opts)
	})
	b.Run("pool-fresh-worker", func(b *testing.B) {
		// One run per worker. Each timed run gets a worker that is ready;
		// starting its replacement is not timed.
		opts := workerOptions("serve", 1)
		opts.RunsPerWorker = 1
		poolCase(b, opts)
	})
}

// BenchmarkToolCall measures one tool call round trip into the guest: the
// difference between 101 sequential calls and 1, per call, each run
// starting on a ready driver.
func BenchmarkToolCall(b *testing.B) {
	one := `return (await github.getIssue({ n: 1 })).n`
	many := `let n = 0; for (let i = 0; i < 101; i++) n += (await github.getIssue({ n: 1 })).n; return n`
	opts := workerOptions("serve", 1)
	opts.RunsPerWorker = 1 << 30
	p, err := NewPool(opts)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	in := NewInProcess()
	defer in.Close()
	host := echoHost{} // answers with the arguments and records nothing
	// The driver prepares runtimes once it has served a run.
	in.Run(context.Background(), request(b, one, host, Limits{}))
	ready := map[string]func(){"inprocess": func() { settle(in) }, "pool": func() { settlePool(p) }}
	for name, d := range map[string]Driver{"inprocess": in, "pool": p} {
		b.Run(name, func(b *testing.B) {
			reqOne, reqMany := request(b, one, host, Limits{}), request(b, many, host, Limits{})
			var tOne, tMany time.Duration
			for b.Loop() {
				ready[name]()
				t0 := time.Now()
				d.Run(context.Background(), reqOne)
				tOne += time.Since(t0)
				ready[name]()
				t1 := time.Now()
				if o := d.Run(context.Background(), reqMany); string(o.Result) != "101" {
					b.Fatal(describeOutcome(o))
				}
				tMany += time.Since(t1)
			}
			b.ReportMetric(float64(tMany-tOne)/float64(b.N)/100/1e3, "us/call")
		})
	}
}

// BenchmarkPrepare shows that plain JavaScript never reaches esbuild.
func BenchmarkPrepare(b *testing.B) {
	js := "const r = await github.searchIssues({ q: 'is:open' });\nconst top = r.items.slice(0, 3).map((i) => i.title);\nreturn top"
	ts := "const r: { items: { title: string }[] } = await github.searchIssues({ q: 'is:open' });\nconst top: string[] = r.items.slice(0, 3).map((i) => i.title);\nreturn top"
	for name, code := range map[string]string{"js": js, "ts": ts} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Prepare(code, Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
