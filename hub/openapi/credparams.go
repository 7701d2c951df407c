package openapi

// Parameters a source's credentials set.
//
// A connection may put its secret where an operation has a parameter of
// its own: many documents declare their API key as a plain query or
// header parameter ("key: Your API key") and no security scheme, and the
// person gives it with `connection add --query key`. A call that sets
// such a parameter is refused (it would replace the connection's value,
// buildRESTRequest), so the model is not asked for it: the listing leaves
// it out of the tool's input and the connection fills it. (A parameter
// where one of the document's own apiKey schemes puts its key is left
// out when the document is read: schemeKey.) A change of connections
// re-lists the source (Hub.ReloadConfig), so its tools follow.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
)

// credentialPlaces is where a source's credentials go: header names
// (lower-cased), query keys and cookie names, over the source's own
// headers and every connection's.
type credentialPlaces struct {
	headers, query, cookies map[string]bool
}

// placesOf is where def's credentials go; nil def, none.
func placesOf(def *config.Source) credentialPlaces {
	p := credentialPlaces{headers: map[string]bool{}, query: map[string]bool{}, cookies: map[string]bool{}}
	if def == nil {
		return p
	}
	for k := range def.Headers {
		p.headers[strings.ToLower(k)] = true
	}
	for _, c := range def.Connections {
		if c == nil {
			continue
		}
		for k := range c.Headers {
			p.headers[strings.ToLower(k)] = true
		}
		for k := range c.Query {
			p.query[k] = true
		}
		for k := range c.Cookies {
			p.cookies[k] = true
		}
	}
	return p
}

// sets reports whether the credentials set parameter prm.
func (p credentialPlaces) sets(prm openapiParam) bool {
	switch prm.in {
	case "header":
		return p.headers[strings.ToLower(prm.name)]
	case "query":
		return p.query[prm.name]
	case "cookie":
		return p.cookies[prm.name]
	}
	return false
}

// dropCredentialParams leaves the parameters that the credentials at p
// set out of the tools' inputs. The tools are the listing's own copies
// (withRequests): they change in place.
func dropCredentialParams(tools []*mcp.Tool, doc *openapiDoc, p credentialPlaces) error {
	if len(p.headers)+len(p.query)+len(p.cookies) == 0 {
		return nil
	}
	var drop []string
	for _, t := range tools {
		op := doc.ops[t.Name]
		if op == nil {
			continue
		}
		drop = drop[:0]
		for _, prm := range op.params {
			if p.sets(prm) {
				drop = append(drop, prm.arg)
			}
		}
		in, ok := t.InputSchema.(json.RawMessage)
		if len(drop) == 0 || !ok {
			continue
		}
		out, err := dropProperties(in, drop)
		if err != nil {
			return fmt.Errorf("operation %s: %w", t.Name, err)
		}
		t.InputSchema = out
	}
	return nil
}

// member is one member of a JSON object, in its order.
type member struct {
	key string
	val json.RawMessage
}

// objectMembers reads a JSON object's members in order.
func objectMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("the input schema is no JSON object")
	}
	var ms []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		ms = append(ms, member{key, v})
	}
	return ms, nil
}

func writeMembers(b *bytes.Buffer, ms []member) {
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, m.key)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
}

// dropProperties returns the object schema with the properties named
// drop left out of its properties and required, every other member as it
// was, in its order.
func dropProperties(schema json.RawMessage, drop []string) (json.RawMessage, error) {
	top, err := objectMembers(schema)
	if err != nil {
		return nil, err
	}
	for i, m := range top {
		switch m.key {
		case "properties":
			props, err := objectMembers(m.val)
			if err != nil {
				return nil, err
			}
			props = slices.DeleteFunc(props, func(p member) bool { return slices.Contains(drop, p.key) })
			var b bytes.Buffer
			writeMembers(&b, props)
			top[i].val = b.Bytes()
		case "required":
			var req []string
			if err := json.Unmarshal(m.val, &req); err != nil {
				return nil, err
			}
			req = slices.DeleteFunc(req, func(r string) bool { return slices.Contains(drop, r) })
			top[i].val, _ = json.Marshal(req)
		}
	}
	top = slices.DeleteFunc(top, func(m member) bool { return m.key == "required" && string(m.val) == "[]" })
	var b bytes.Buffer
	writeMembers(&b, top)
	return b.Bytes(), nil
}

// authParam reports whether a header, query or cookie parameter of an
// operation that declares security is that security's credential said
// again: its name is a credential's (token, access_token, api_key, in any
// case, with or without "x-") and its description says it authenticates.
// Slack's document gives every method a "token" header ("Authentication
// token. Requires scope: chat:write") beside its OAuth scheme, EVE's a
// "token" query parameter ("Access token to use if unable to set a
// header"): the connection authenticates the call, and the model is not
// asked for a secret. A token that is a value of the API's own ("The
// invite token to resolve") says nothing of authenticating and stays, as
// does a parameter of an operation that declares no security (the
// connection's credentials may set it: dropCredentialParams).
func authParam(in, name, desc string, secured bool) bool {
	if !secured || in == "path" {
		return false
	}
	n := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name))
	n = strings.TrimPrefix(n, "x")
	switch n {
	case "token", "accesstoken", "authtoken", "oauthtoken", "apikey", "authkey":
	default:
		return false
	}
	d := strings.ToLower(desc)
	return strings.Contains(d, "authenticat") || strings.Contains(d, "authoriz") || strings.Contains(d, "oauth") || strings.Contains(d, "access token")
}
