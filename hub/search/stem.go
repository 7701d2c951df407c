package search

import "strings"

// stem reduces a lower-case English word to a stem, in place, and returns
// the shortened slice (step 2 and step 5 may append to it: "us" -> "use",
// "centr" -> "center"). It is a light suffix stripper in the spirit of
// Porter2: it does not try to produce real words, only to send the
// inflections and common derivations of a word to the same stem
// ("create", "creates", "created", "creating", "creation" -> "creat";
// "directory", "directories" -> "directori").
//
// The steps, in order:
//
//  1. Plurals and third person: -sses -> -ss, -ies -> -y, -s -> "" (not
//     after s or u, nor in -sis and -xis: "class", "status", "analysis",
//     "axis" keep their s, "emojis" and "apis" lose it). A stem now
//     under four letters is left as it is ("uses": "use").
//  2. Past and progressive: -eed -> -ee, -ied -> -y, then -ed and -ing are
//     dropped when a vowel remains ("bring" and "red" stay); a doubled
//     final consonant is undone in stems of five letters or more
//     ("committed" -> "commit", while "added" keeps "add"). A stem left
//     in -eed loses its d as the word would ("needed" -> "nee" as "need"),
//     one of two letters gets its e back ("used" -> "use"), and one of
//     three is left as it is.
//  3. Derivations, one at a time: -ship (after five letters or more: a
//     membership is a member's, a starship no star), -ly, -ness, -ment,
//     -able, -ible, -ence, -ance, -ation, -tion, each only when enough of
//     the word remains to be meaningful; -scription as the verb's -scribe
//     ("subscription", "subscribe" -> "subscrib").
//  4. A final -e is dropped and a final consonant+y becomes i, so that
//     "create"/"creat-ed" and "copy"/"cop-ied" meet; then an -at after
//     five letters or more, not after e, o or a, goes as step 3's -ation
//     does ("validate", "validation", "valid" -> "valid"; "update" and
//     "heartbeat" keep theirs).
//  5. A British spelling's stem becomes the American one's (american):
//     "organisation"/"organization", "colour"/"color".
//
// Words shorter than four letters and words containing digits or non-ASCII
// letters are returned unchanged.
func stem(w []byte) []byte {
	if len(w) < 4 {
		return w
	}
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return w
		}
	}

	// Step 1: plurals.
	switch {
	case hasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case hasSuffix(w, "ies"):
		w = append(w[:len(w)-3], 'y')
	case w[len(w)-1] == 's':
		switch w[len(w)-2] {
		case 's', 'u':
		case 'i':
			// "emojis", "apis", "wikis", "uris" are plurals;
			// "analysis", "basis", "axis" are not.
			if c := w[len(w)-3]; c != 's' && c != 'x' {
				w = w[:len(w)-1]
			}
		default:
			w = w[:len(w)-1]
		}
	}

	if len(w) < 4 {
		// The plural of a word too short to stem ("uses", "ones")
		// stays with it.
		return w
	}

	// Step 2: -ed, -ing.
	switch {
	case hasSuffix(w, "eed"):
		w = w[:len(w)-1]
	case hasSuffix(w, "ied") && len(w) > 4:
		w = append(w[:len(w)-3], 'y')
	case hasSuffix(w, "ed"):
		w = stripVerbEnding(w, 2)
	case hasSuffix(w, "ing"):
		w = stripVerbEnding(w, 3)
	}
	if hasSuffix(w, "eed") {
		// "needed", "exceeding": as "need" and "exceed".
		w = w[:len(w)-1]
	}
	switch {
	case len(w) < 3:
		// "used", "using": "use", as the word itself stays.
		return append(w, 'e')
	case len(w) < 4:
		return w
	}

	// Step 3: derivational suffixes; min is the shortest remaining stem.
	if hasSuffix(w, "ship") && len(w) >= 9 {
		w = w[:len(w)-4]
	}
	for _, s := range derivations {
		if hasSuffix(w, s.suffix) && len(w)-len(s.suffix) >= s.min {
			w = append(w[:len(w)-len(s.suffix)], s.replace...)
			break
		}
	}

	// Step 4: final e and y.
	n := len(w)
	finalE := false
	switch {
	case n >= 3 && w[n-1] == 'e':
		w, finalE = w[:n-1], true
	case n >= 3 && w[n-1] == 'y' && !isVowel(w[n-2]):
		w[n-1] = 'i'
	}
	// A verb in -ate meets its -ation as step 3 left it ("validate",
	// "validation" -> "valid"; "activate", "active" -> "activ").
	if n = len(w); n >= 7 && hasSuffix(w, "at") && w[n-3] != 'e' && w[n-3] != 'o' && w[n-3] != 'a' {
		w = w[:n-2]
	}
	return american(w, finalE)
}

// american rewrites a stem of a British spelling as the American one's
// (step 5 of stem), so that a request and a tool written on either side
// of the Atlantic meet: -is(e) as -iz(e) ("organisation", "authorise"),
// -lys(e) as -lyz(e) ("analyse"), -our as -or ("colour", "favourite",
// "behaviour"), licence, defence and offence as -ense, -ogue as -og
// ("catalogue"), -tre and -bre as -ter and -ber ("centre", "fibre": the
// stem lost a final e, finalE, so "substring" keeps its r) and a doubled l
// after e before an ending as one ("cancelled", "labelling"). It works on
// the stem, so every form of a word folds the same way; short stems are
// left alone ("advise", "hour", "tour", "spell").
func american(w []byte, finalE bool) []byte {
	n := len(w)
	switch {
	case n >= 6 && hasSuffix(w, "is"):
		w[n-1] = 'z'
	case n >= 6 && hasSuffix(w, "lys"):
		w[n-1] = 'z'
	case n >= 6 && (hasSuffix(w, "ogu") || hasSuffix(w, "ell")):
		w = w[:n-1]
	case n == 6 && (string(w) == "licenc" || string(w) == "defenc" || string(w) == "offenc"):
		w[n-1] = 's'
	case finalE && n >= 4 && (hasSuffix(w, "tr") || hasSuffix(w, "br")):
		w = append(w[:n-1], 'e', 'r')
	}
	// -our as -or, at the stem's end or before a suffix the steps above
	// leave: favourit, colourful, neighbourhood, favourabl.
	for _, suf := range [...]string{"our", "ourit", "ourabl", "ourful", "ourhood", "ourless"} {
		if i := len(w) - len(suf); i >= 3 && hasSuffix(w, suf) {
			w = append(w[:i+1], w[i+2:]...) // drop the u
			break
		}
	}
	return w
}

var derivations = []struct {
	suffix, replace string
	min             int
}{
	{"ization", "iz", 3},
	{"scription", "scrib", 2},
	{"ation", "", 5},
	{"ation", "at", 2},
	{"tion", "t", 3},
	{"ness", "", 3},
	{"ment", "", 4},
	{"ably", "", 4},
	{"able", "", 4},
	{"ible", "", 4},
	{"ence", "", 4},
	{"ance", "", 4},
	{"ly", "", 4},
}

// stripVerbEnding removes an -ed or -ing ending of length n when the
// remaining stem has a vowel, and undoes a doubled final consonant.
func stripVerbEnding(w []byte, n int) []byte {
	stemPart := w[:len(w)-n]
	if len(stemPart) < 2 || !hasVowel(stemPart) {
		return w
	}
	k := len(stemPart)
	if k >= 5 && stemPart[k-1] == stemPart[k-2] && !isVowel(stemPart[k-1]) {
		switch stemPart[k-1] {
		case 'l', 's', 'z':
		default:
			stemPart = stemPart[:k-1]
		}
	}
	return stemPart
}

func hasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	}
	return false
}

func hasVowel(w []byte) bool {
	for i, c := range w {
		if isVowel(c) || (c == 'y' && i > 0) {
			return true
		}
	}
	return false
}

// agentBases returns the words an agent noun ("watcher", "assignee",
// "creator") may come from, most likely first: the word without its
// suffix, with an e restored ("creat" -> "create"), or with a doubled
// consonant undone ("runner" -> "run"). It returns nil for other words and
// for bases shorter than four letters ("user", "owner").
func agentBases(w string) []string {
	for _, suf := range [...]string{"ers", "er", "ors", "or", "ees", "ee"} {
		base, ok := strings.CutSuffix(w, suf)
		if !ok || len(base) < 4 {
			continue
		}
		out := []string{base, base + "e"}
		if n := len(base); base[n-1] == base[n-2] && !strings.ContainsRune("aeiou", rune(base[n-1])) {
			out = append(out, base[:n-1])
		}
		return out
	}
	return nil
}
