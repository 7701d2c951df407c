// Package exactjson reads JSON by its exact value: two texts that hold the
// same value are the same, and a value is handed on with the bytes it was
// written with, numbers included.
//
// encoding/json decodes every number into a float64, so 9007199254740993
// and 0.1000000000000000000001 lose digits on the way in. The hub compares
// and reads JSON where that loss would show:
//
//   - Hash (hash.go) names a call's arguments in the run's journal, so that
//     a resumed run's call matches the journaled one whatever order its
//     keys were written in, and a plan's entry matches the call the run
//     makes. Its canonical form is json.Marshal of json.Unmarshal into any,
//     as the journals already hold it, except that a number a float64 does
//     not hold exactly keeps its exact value. Compact, sorted JSON, which
//     the sandbox sends, is recognised as canonical without the round trip.
//     Decode is the value of that form, for a caller that checks it before
//     writing it canonically (a direct-mode call's arguments).
//   - At (path.go) is the value at a path of keys and indexes in a JSON
//     text, cut out of the text as written: what hub.read returns for a
//     handle read by path. It walks the text once, skipping what it passes,
//     and says in words why a path leads nowhere; ExamplePath is a path into
//     a value for the notice that tells the model how to read it.
//
// The package imports nothing of the hub's: its callers bring the bounds
// (how long a path, how large a text) and the errors they map its answers
// to.
package exactjson
