package search

import (
	"math"
	"math/bits"
	"slices"
)

// Namespaces of very different sizes. A person's hub may hold GitHub's
// description (1,222 tools) beside servers of a handful of tools each.
// The first stage's statistics are then GitHub's: "branch", "commit" or
// "file" are common words there, and a small server's tool that is the
// one asked for ("list the branches" of the local repository, "how big
// is data.csv" on disk) ranks under tens of GitHub's operations, or not
// among the candidates at all.
//
// So, when a catalog's namespaces differ in size, the request also
// chooses among them, as a federated search chooses collections: a
// namespace in which the request's words are more common than in the
// catalog as a whole ranks its tools higher. For each query word w, the
// share of the namespace's tools that match it, smoothed toward the
// catalog's share (nsSmooth tools' worth), over the catalog's share is
// its lift; a namespace's weight is the sum of the logs of its lifts
// above one, each at most nsFull, over nsFull for each of the request's
// words: a namespace that one word of three points to weighs at most a
// third of one that all three do, however rare that word ("require a
// linear history on main" is no request for the thinking server that
// alone says "linear"). The request's verb counts only in the tools that
// do it: "block that spammer" is no request for the filesystem server,
// whose one tool returns a "content block". A request that names a thing
// by value ("show the logs of job 42") gets no weight from a namespace
// none of whose tools takes that thing by id or a value of its kind
// (git's tools take no job; git_show takes a commit's hash), nor a
// request that names a file from one that takes none ("what's the
// last-modified time of index.html" is no request for the time server).
// It counts in the second stage, as a share of the best score like the
// other features, in proportion to how much smaller the namespace is than the
// largest (nsGate): nothing for one less than four times smaller, all of
// it for one a hundred times smaller. The best few tools of the smaller
// namespaces join the second stage's candidates even when the first stage
// ranks them lower. A catalog of one namespace, or of namespaces of like
// size, is read as before.
//
// The cost is a pass over the docs the request matched, as scoring made
// (BenchmarkSearch100kUneven: nine tools in ten in one namespace).

const (
	// nsSmooth is how many tools' worth of the catalog's share a
	// namespace's share of matching tools is smoothed with.
	nsSmooth = 5
	// nsFull is the log-lift per word of the request at which a
	// namespace's weight counts in full.
	nsFull = 1.5
	// nsGateFrom is the ratio of sizes from which a namespace's weight
	// counts, nsGateRange the one at which it counts in full.
	nsGateFrom  = 4
	nsGateRange = 100
	// nsPer is how many of each smaller namespace's best tools join the
	// candidates, nsExtra how many at most in all, and nsFloor the share
	// of the best first-stage score they must have.
	nsPer   = 3
	nsExtra = 16
	nsFloor = 0.3
)

// namespaceGates sets ix.nsGate: per namespace, how much of its weight
// counts, log(largest/size/nsGateFrom) / log(nsGateRange/nsGateFrom) in
// [0, 1], and ix.gated when any is above 0.
func (ix *Index) namespaceGates() {
	largest := 0
	for _, l := range ix.byNS {
		largest = max(largest, len(l))
	}
	ix.nsGate = make([]float32, len(ix.byNS))
	for ns, l := range ix.byNS {
		if len(l) == 0 {
			continue
		}
		g := math.Log(float64(largest)/float64(len(l))/nsGateFrom) / math.Log(nsGateRange/nsGateFrom)
		ix.nsGate[ns] = float32(min(1, max(0, g)))
		ix.gated = ix.gated || g > 0
	}
}

// namespaceFeatures sets, for a gated index, what namespaceStats and the
// second stage read of each doc and each smaller namespace: ix.doers, and
// by namespace the things its tools take by id and the words of their
// parameters' names.
func (ix *Index) namespaceFeatures() {
	if !ix.gated {
		return
	}
	ix.doers = make([]doer, len(ix.feat))
	ix.nsItems = make([][]int32, len(ix.byNS))
	ix.nsParams = make([][]int32, len(ix.byNS))
	for i := range ix.feat {
		f := &ix.feat[i]
		ix.doers[i] = doer{act: f.act, verb: f.verb, nameVerb: f.nameVerb}
		ns := ix.docNS[i]
		if ix.nsGate[ns] == 0 {
			continue
		}
		for _, t := range f.items(ix.featIDs) {
			if !slices.Contains(ix.nsItems[ns], t) {
				ix.nsItems[ns] = append(ix.nsItems[ns], t)
			}
		}
		for _, t := range f.params(ix.featIDs) {
			if !slices.Contains(ix.nsParams[ns], t) {
				ix.nsParams[ns] = append(ix.nsParams[ns], t)
			}
		}
	}
}

// namespaceStats computes, for a request whose words scored sc.matched
// over all namespaces of a gated index, the weight of each matched
// namespace whose weight counts (sc.nsWeight by slot, sc.nsSlot per
// namespace; sc.nsMax the highest) and appends to hits the
// best nsPer tools of each smaller namespace that hits lacks, at most
// nsExtra, best first. It returns hits and how many it appended.
// resetNamespaces undoes its marks.
func (ix *Index) namespaceStats(sc *scratch, hits []Hit) ([]Hit, int) {
	// Only the first 32 words have a bit in sc.words.
	nw := min(len(sc.qidf), 32)
	if len(sc.nsSlot) != len(ix.byNS) {
		sc.nsSlot = make([]int32, len(ix.byNS))
		for i := range sc.nsSlot {
			sc.nsSlot[i] = -1
		}
	}
	sc.nsAll = zeros(sc.nsAll[:0], nw)
	floor := nsFloor * hits[0].Score
	vb, vact, vterms := ix.verbOfRequest(sc)
	sc.markVerbTerms(vterms, len(ix.terms))
	defer sc.markVerbTerms(nil, 0)
	// The hits' docs are marked in sc.seen, clear since scoring.
	for _, h := range hits {
		sc.seen[h.Doc>>6] |= 1 << (h.Doc & 63)
	}
	for _, d := range sc.matched {
		ns := ix.docNS[d]
		words := sc.words[d]
		if words&vb != 0 {
			if f := &ix.doers[d]; f.act&vact == 0 && !sc.isVerbTerm(f.verb) && !sc.isVerbTerm(f.nameVerb) {
				words &^= vb
			}
		}
		if ix.nsGate[ns] == 0 {
			// The largest namespaces only count toward the catalog's
			// shares: their own weight would count for nothing.
			for b := words; b != 0; b &= b - 1 {
				if i := bits.TrailingZeros32(b); i < nw {
					sc.nsAll[i]++
				}
			}
			continue
		}
		slot := sc.nsSlot[ns]
		if slot < 0 {
			slot = int32(len(sc.nsTouched))
			sc.nsSlot[ns] = slot
			sc.nsTouched = append(sc.nsTouched, ns)
			sc.nsCount = zeros(sc.nsCount, nw)
			for range nsPer {
				sc.nsBest = append(sc.nsBest, Hit{Doc: -1})
			}
		}
		counts := sc.nsCount[int(slot)*nw : int(slot+1)*nw]
		for b := words; b != 0; b &= b - 1 {
			if i := bits.TrailingZeros32(b); i < nw {
				counts[i]++
				sc.nsAll[i]++
			}
		}
		if sc.score[d] < floor || sc.seen[d>>6]&(1<<(d&63)) != 0 {
			continue
		}
		// The namespace's best nsPer docs, first stage.
		h := Hit{Doc: int(d), Score: sc.score[d]}
		best := sc.nsBest[int(slot)*nsPer : int(slot+1)*nsPer]
		for k := range best {
			if best[k].Doc < 0 || ix.better(h, best[k]) {
				copy(best[k+1:], best[k:len(best)-1])
				best[k] = h
				break
			}
		}
	}

	// Each namespace's weight, and the highest; the words that count.
	sc.nsWeight = sc.nsWeight[:0]
	sc.nsMax = 0
	sc.nsWords = 0
	for i := range nw {
		if i != sc.qself && sc.nsAll[i] > 0 {
			sc.nsWords++
		}
	}
	for slot, ns := range sc.nsTouched {
		counts := sc.nsCount[slot*nw : (slot+1)*nw]
		var r float64
		for i := range nw {
			if i == sc.qself || sc.nsAll[i] == 0 {
				continue
			}
			all := sc.nsAll[i] / float64(ix.n)
			share := (counts[i] + nsSmooth*all) / (float64(len(ix.byNS[ns])) + nsSmooth)
			if lift := share / all; lift > 1 {
				r += min(math.Log(lift), nsFull)
			}
		}
		sc.nsMax = max(sc.nsMax, r)
		sc.nsWeight = append(sc.nsWeight, r*float64(ix.nsGate[ns]))
	}

	// The smaller namespaces' best, not yet among the hits: the nsExtra
	// best of them, kept in order as they come.
	for _, h := range hits {
		sc.seen[h.Doc>>6] = 0
	}
	extra := sc.nsExtraBuf[:0]
	for _, h := range sc.nsBest {
		if h.Doc < 0 || len(extra) == nsExtra && !ix.better(h, extra[nsExtra-1]) {
			continue
		}
		k := len(extra)
		if k < nsExtra {
			extra = append(extra, h)
		} else {
			k--
		}
		for ; k > 0 && ix.better(h, extra[k-1]); k-- {
			extra[k] = extra[k-1]
		}
		extra[k] = h
	}
	sc.nsExtraBuf = extra
	return append(hits, extra...), len(extra)
}

// resetNamespaces clears the marks namespaceStats left in sc.
func (sc *scratch) resetNamespaces() {
	for _, ns := range sc.nsTouched {
		sc.nsSlot[ns] = -1
	}
	sc.nsTouched, sc.nsCount, sc.nsBest, sc.nsWeight = sc.nsTouched[:0], sc.nsCount[:0], sc.nsBest[:0], sc.nsWeight[:0]
	sc.nsMax, sc.nsWords = 0, 0
}

// namespaceShare is the weight of doc d's namespace over nsFull for each
// of the request's words, at most 1; 0 when namespaceStats did not run or
// d's counts for nothing.
func (ix *Index) namespaceShare(sc *scratch, d int) float64 {
	if sc.nsMax == 0 {
		return 0
	}
	slot := sc.nsSlot[ix.docNS[d]]
	if slot < 0 {
		return 0
	}
	return min(1, sc.nsWeight[slot]/(nsFull*float64(sc.nsWords)))
}

// zeros appends n zeros to dst.
func zeros(dst []float64, n int) []float64 {
	for range n {
		dst = append(dst, 0)
	}
	return dst
}

// verbOfRequest is, when the request's first word is a verb, its bit in
// sc.words, its action and its terms; 0, 0, nil otherwise.
func (ix *Index) verbOfRequest(sc *scratch) (uint32, uint8, []int32) {
	if sc.verbBit == 0 {
		return 0, 0, nil
	}
	i := bits.TrailingZeros32(sc.verbBit)
	start := 0
	if i > 0 {
		start = sc.ends[i-1]
	}
	w := sc.stems[start:sc.ends[i]]
	act := actionVerbs[string(w)]
	if id, ok := ix.terms[string(w)]; act == 0 && !(ok && ix.verbs[id]) {
		return 0, 0, nil
	}
	return sc.verbBit, act, sc.qterms[sc.qstarts[i]:sc.qstarts[i+1]]
}

// markVerbTerms marks terms, the request's verb's, in sc.vset, and
// unmarks those marked before; n is how many terms the index has.
func (sc *scratch) markVerbTerms(terms []int32, n int) {
	for _, t := range sc.vterms {
		sc.vset[t>>6] = 0
	}
	sc.vterms = append(sc.vterms[:0], terms...)
	if len(terms) == 0 {
		return
	}
	if len(sc.vset) < (n+63)/64 {
		sc.vset = make([]uint64, (n+63)/64)
	}
	for _, t := range terms {
		sc.vset[t>>6] |= 1 << (t & 63)
	}
}

// isVerbTerm reports whether term t is one of the request's verb's.
func (sc *scratch) isVerbTerm(t int32) bool {
	return t >= 0 && int(t>>6) < len(sc.vset) && sc.vset[t>>6]&(1<<(t&63)) != 0
}

// doer is what a doc does, as its docFeatures say: its act and the terms
// of its title's and its name's verbs, in a dense array namespaceStats
// reads for every doc the request's verb matches.
type doer struct {
	act            uint8
	verb, nameVerb int32
}
