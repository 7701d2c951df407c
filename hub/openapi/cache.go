package openapi

// The parsed operations of documents, cached.
//
// A Child with a CacheDir keeps what it wrote for each document, packed,
// in a file named by what decides it: the encoding's version, the child's
// executable (its path, size and time: another build may parse otherwise),
// the document's place (a relative server URL resolves against it) and
// the document's SHA-256. A hub that starts again with the same document
// reads that file instead of starting a child; a document that changed has
// another name. A file is written whole under a temporary name and renamed
// into place; one that does not read back (cut short, corrupt, from
// another version) is removed and the document parsed again. The folder
// keeps the newest maxCacheFiles files.

import (
	"bufio"
	"cmp"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

const maxCacheFiles = 16

// cacheFile is the file of data's operations, read from loc; "" when c
// keeps none or its executable cannot be read.
func (c *Child) cacheFile(loc string, data []byte) string {
	if c.CacheDir == "" {
		return ""
	}
	exe, err := os.Stat(c.Command[0])
	if err != nil {
		return ""
	}
	h := sha256.New()
	doc := sha256.Sum256(data)
	fmt.Fprintf(h, "%s/%d\x00%s\x00%d\x00%d\x00%s\x00%x", childFormat, childVersion, c.Command[0], exe.Size(), exe.ModTime().UnixNano(), loc, doc)
	return filepath.Join(c.CacheDir, hex.EncodeToString(h.Sum(nil))+".ops")
}

// cached reads the operations of file, or returns nil; a file that does
// not read back is removed.
func cached(file, loc string) *openapiDoc {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	doc, err := readChild(flate.NewReader(bufio.NewReader(io.LimitReader(f, maxChildOutput))), loc)
	if err != nil {
		os.Remove(file)
		return nil
	}
	now := time.Now()
	os.Chtimes(file, now, now) // the newest, for the pruning
	return doc
}

// keep writes doc's operations to file, whole or not at all, and prunes
// the folder to its newest maxCacheFiles files. It is best effort: a
// folder that cannot be written only means the next start parses again.
func keep(file string, doc *openapiDoc) {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".ops-*")
	if err != nil {
		return
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	zw, err := flate.NewWriter(tmp, flate.BestSpeed)
	if err != nil || writeChild(zw, doc, nil) != nil || zw.Close() != nil || tmp.Sync() != nil || tmp.Close() != nil {
		return
	}
	if os.Rename(tmp.Name(), file) != nil {
		return
	}
	ok = true
	prune(dir)
}

// prune removes all but the newest maxCacheFiles files of dir.
func prune(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var files []aged
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".ops") {
			continue
		}
		if info, err := e.Info(); err == nil {
			files = append(files, aged{e.Name(), info.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(files, func(a, b aged) int { return cmp.Compare(b.mod, a.mod) })
	for _, f := range files[min(len(files), maxCacheFiles):] {
		os.Remove(filepath.Join(dir, f.name))
	}
}
