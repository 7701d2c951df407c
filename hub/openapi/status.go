package openapi

import (
	"slices"
	"strings"

	"capabilities.sh/capabilities/hub/secrets"
)

// SourceStatus is what the status of an OpenAPI source says beside its
// state (hub.SourceStatus holds it): what its operations wait for, what
// they leave out, and where its calls go.
type SourceStatus struct {
	// Waiting is how many of its operations wait for credentials its
	// default connection does not give, and Need the need of the most of
	// them, with the command that meets it (Needs).
	Waiting int    `json:"waiting,omitempty"`
	Need    string `json:"need,omitempty"`
	// Elsewhere are the origins, other than its API's, on which its
	// document puts operations the source leaves out, its "origins" not
	// listing them, as a person writes them (secrets.ShownOrigin).
	Elsewhere []string `json:"elsewhere,omitempty"`
	// API is where its calls go: its baseUrl (a secret it references
	// shown as the reference), else its document's server; "" when it
	// has neither, or the document is not loaded yet and it has no
	// baseUrl.
	API string `json:"api,omitempty"`
}

// Status returns source's SourceStatus; its zero value for a source that
// is not an OpenAPI source of the config.
func (o *Sources) Status(source string) SourceStatus {
	var st SourceStatus
	o.mu.Lock()
	if def := o.cfg.Sources[source]; def != nil {
		st.API = strings.TrimRight(def.BaseURL, "/")
	}
	o.mu.Unlock()
	doc, def := o.loaded(source)
	if doc == nil || def == nil {
		return st
	}
	st.Waiting, _, st.Need = o.Needs(source)
	for _, op := range doc.ops {
		if origin := secrets.ShownOrigin(doc.elsewhere(op)); !doc.serves(def, op) && !slices.Contains(st.Elsewhere, origin) {
			st.Elsewhere = append(st.Elsewhere, origin)
		}
	}
	slices.Sort(st.Elsewhere)
	if st.API == "" {
		st.API = doc.server
	}
	return st
}
