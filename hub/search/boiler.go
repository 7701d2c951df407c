package search

import (
	"hash/maphash"
	"strings"
)

// boilerMin is how many of a namespace's tools must say a sentence word
// for word before it counts as boilerplate.
const boilerMin = 8

// boilerSet holds the sentences (hashed with their namespace) that many
// tools of a namespace repeat word for word: Jira's "**[Permissions]
// (#permissions) required:** *Administer Jira* [global permission](...)"
// in 213 of its 499 operations, GitHub's "OAuth app tokens and personal
// access tokens (classic) need the `repo` scope to use this endpoint." They
// say nothing about what one tool does, yet would make their words common
// to every tool: "permission" is in 490 of Jira's descriptions, and a
// request for "permission schemes" could not tell the schemes' tools by it.
type boilerSet map[uint64]struct{}

var boilerSeed = maphash.MakeSeed()

func boilerHash(ns, sentence string) uint64 {
	var h maphash.Hash
	h.SetSeed(boilerSeed)
	h.WriteString(ns)
	h.WriteByte(0)
	h.WriteString(sentence)
	return h.Sum64()
}

// sentences calls f with each sentence of s, trimmed: the text between
// line breaks and after a full stop followed by a space.
func sentences(s string, f func(string)) {
	for len(s) > 0 {
		end := len(s)
		next := len(s)
		for i := 0; i < len(s); i++ {
			if s[i] == '\n' {
				end, next = i, i+1
				break
			}
			if s[i] == '.' && i+1 < len(s) && s[i+1] == ' ' {
				end, next = i+1, i+2
				break
			}
		}
		if t := strings.TrimSpace(s[:end]); t != "" {
			f(t)
		}
		s = s[next:]
	}
}

// boilerplate finds the sentences that boilerMin or more of a namespace's
// docs repeat in their descriptions.
func boilerplate(docs []Doc) boilerSet {
	counts := map[uint64]int32{}
	var seen []uint64
	for i := range docs {
		seen = seen[:0]
		sentences(docs[i].Description, func(t string) {
			h := boilerHash(docs[i].Namespace, t)
			for _, x := range seen {
				if x == h {
					return
				}
			}
			seen = append(seen, h)
			counts[h]++
		})
	}
	var set boilerSet
	for h, n := range counts {
		if n >= boilerMin {
			if set == nil {
				set = boilerSet{}
			}
			set[h] = struct{}{}
		}
	}
	return set
}

// strip returns s without the sentences that are boilerplate of
// namespace ns, s itself when it has none; buf holds the text it builds
// otherwise, for reuse.
func (b boilerSet) strip(buf *[]byte, ns, s string) string {
	if len(b) == 0 {
		return s
	}
	dst, cut := (*buf)[:0], false
	sentences(s, func(t string) {
		if _, ok := b[boilerHash(ns, t)]; ok {
			cut = true
			return
		}
		if len(dst) > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, t...)
	})
	*buf = dst
	if !cut {
		return s
	}
	return string(dst)
}
