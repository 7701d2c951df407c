// Package tsgen writes TypeScript for the tools of a catalog: one-line
// signatures for search results (Signature, FirstSentence) and exact
// declarations within a token budget for describe (Describe), and the
// declaration of the guest's hub global itself (HubDeclaration, hub.go);
// FitComment cuts a block comment, a skill's instructions, to the budget.
// It is pure: no I/O besides the tokenizer's embedded data, and no MCP
// types.
//
// # What the guest sees
//
// Each namespace is a global object of async methods. Describe declares it
// as
//
//	declare const github: {
//		/** Search issues and pull requests. */
//		searchIssues(input: {
//			/** Search query, GitHub syntax. */
//			q: string;
//			perPage?: number;
//		}, options?: CallOptions): Promise<github.IssueSearchResult>;
//	};
//
//	declare namespace github {
//		interface IssueSearchResult { ... }
//	}
//
// with CallOptions declared once before the first namespace. The input
// parameter is optional when the input schema requires no property; the
// hub then passes {}.
//
// A method's result is typed by the tool's output schema, as a named type:
// the schema's title when it is an identifier (and not already taken by a
// different schema), else <Tool>Result. The hub resolves the promise with
// the call's structuredContent.
//
// A tool without an output schema resolves to unknown, and its JSDoc says
// what the value is. The hub derives it from the call's content: when the
// content is a single text item whose text parses as JSON, the parsed
// value; otherwise, when every item is text, the texts joined by "\n";
// otherwise the content array as the server sent it.
//
// # From JSON Schema to TypeScript
//
//   - string, number, boolean and null map to themselves, integer to
//     number; a type list is a union.
//   - A missing type is inferred from the keywords (properties: object,
//     items: array), else unknown. The schema true is unknown, false never.
//   - enum and const become literal types, in a union.
//   - An object lists its required properties first, then the optional
//     ones, each group in the schema's order (the raw JSON is read in
//     order). A name that is not an identifier is quoted. A required name
//     missing from properties is typed unknown.
//   - additionalProperties (true or a schema) and patternProperties become
//     one [key: string] index signature. Because TypeScript checks every
//     property against it, its type also admits the property types.
//   - items is an array; prefixItems, or an items array in draft 7, a
//     tuple whose elements past minItems are optional, with a rest element
//     unless items/additionalItems is false or maxItems closes it.
//   - anyOf and oneOf are unions, allOf an intersection, combined with the
//     schema's own type by intersection. Members that only add constraints
//     (required, format...) are ignored.
//   - type [..., "null"] and nullable: true add | null.
//   - $ref (local: "#", JSON pointers into $defs or definitions, $anchor)
//     names a type, which is how recursive schemas are written. A target
//     with no object and no reference inside is printed in place.
//   - description is the JSDoc of a property, a method or a type; title
//     stands in when there is no description and it says more than the
//     name. default, format, minimum, maximum, exclusiveMinimum,
//     exclusiveMaximum, multipleOf, minLength, maxLength, pattern,
//     minItems, maxItems, uniqueItems, minProperties, maxProperties,
//     examples, example and deprecated become JSDoc tags.
//
// # Type names
//
// Names depend only on the namespace's tools, never on the budget or the
// request, so a name printed once can be described later. In order of
// precedence: <Tool>Input for an input, the result name for an output,
// each $defs or definitions key in PascalCase (prefixed with the
// document's name when another tool's definitions differ), and for every
// nested object with properties the name of its nearest named ancestor
// followed by its path: property names in PascalCase, Item for array
// items, Item1.. for tuple elements, Value for additionalProperties,
// Option1.. for anyOf/oneOf members and Part1.. for allOf members
// (github.CreateIssueInputMilestone, memory.CreateEntitiesInputEntitiesItem).
// Identical schemas at the same name share it; a clash appends a number.
//
// # The budget
//
// Describe keeps its output within Options.Budget tokens (2,500 by default),
// by o200k_base and by Claude's tokenizer alike: BudgetTokens counts
// o200k_base tokens plus a margin of 30%, above the most Claude's tokenizer
// counts on declarations (checked against the npm tokenizer). The methods and types that targets name one by
// one come first, as deep as fits: an object literal nested deeper than
// the chosen depth is replaced by its name, as is a named type referenced
// from that deep. A namespace target then adds its other tools while they
// fit, in full or else with their first level. The output ends with a
// comment naming what it left out:
//
//	// Not shown (budget): github.IssueUser, github.listCommits. Describe them by name.
package tsgen
