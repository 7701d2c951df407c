// Planning: placeholders for the results of calls the host planned instead
// of running (see "Planning" in the sandbox package documentation).
//
// A placeholder is a Proxy over one shared frozen function without own
// properties. Reading a property gives a placeholder for the value at that
// path (the same one on every read); anything that needs the actual value
// (a conversion to a primitive, iteration, listing or testing keys, a call,
// a change, JSON) stops planning through bridge.planStop, which interrupts
// the run: nothing after it runs. Everything here runs while guest code may
// have changed the built-in prototypes, so it uses no method of them:
// captured functions, own properties and objects without a prototype.
(function (bridge, cfg, internal) {
	"use strict";
	const ProxyCtor = Proxy;
	const ObjectFreeze = Object.freeze;
	const ObjectKeys = Object.keys;
	const ObjectDefineProperty = Object.defineProperty;
	const ObjectSetPrototypeOf = Object.setPrototypeOf;
	const ReflectApply = Reflect.apply;
	const ReflectDeleteProperty = Reflect.deleteProperty;
	const ArrayIsArray = Array.isArray;
	const WeakMapGet = WeakMap.prototype.get;
	const WeakMapSet = WeakMap.prototype.set;
	const TypeErrorCtor = TypeError;
	const SymbolToPrimitive = Symbol.toPrimitive;
	const SymbolIterator = Symbol.iterator;
	const SymbolAsyncIterator = Symbol.asyncIterator;
	const planStop = bridge.planStop;
	const symbolicStringify = internal.symbolicStringify;
	const quote = internal.stringify;
	// A result nests at most this deep; a longer path reads nothing real.
	const maxDepth = cfg.maxJSONDepth;

	const states = new WeakMap(); // placeholder -> its state
	let active = false; // a placeholder was made in this run

	function stateOf(v) {
		return typeof v === "function" ? ReflectApply(WeakMapGet, states, [v]) : undefined;
	}
	// list is an empty array without a prototype: filling it runs nothing
	// the guest put on Array.prototype.
	function list() {
		const a = [];
		ObjectSetPrototypeOf(a, null);
		return a;
	}
	function pathOf(s) {
		if (s.path === null) {
			const up = list();
			let n = 0;
			for (let t = s; t.parent !== null; t = t.parent) up[n++] = t.key;
			const path = list();
			for (let i = 0; i < n; i++) path[i] = up[n - 1 - i];
			s.path = ObjectFreeze(path);
		}
		return s.path;
	}
	// stop ends planning: what follows needs the value s stands for. kind
	// and key say why (the sandbox words the reason).
	function stop(s, kind, key) {
		planStop(s.seq, pathOf(s), kind, key);
	}

	// The target: a function, so that calling a placeholder reaches the
	// apply trap (r.items.map(f) stops planning instead of throwing), with
	// no own property, so that no invariant ties what the traps answer.
	const target = () => undefined;
	ReflectDeleteProperty(target, "name");
	ReflectDeleteProperty(target, "length");
	ObjectFreeze(target);

	const toPrimitive = {
		[SymbolToPrimitive](hint) {
			const s = stateOf(this);
			if (s === undefined) throw new TypeErrorCtor("not a placeholder");
			stop(s, "primitive", hint === "number" || hint === "string" ? hint : "default");
		},
	}[SymbolToPrimitive];
	ObjectFreeze(toPrimitive);

	// The handler of each placeholder is { __proto__: traps, s }: the traps
	// read their placeholder's state from it.
	const traps = ObjectFreeze({
		__proto__: null,
		get(t, key) {
			const s = this.s;
			if (typeof key === "symbol") {
				if (key === SymbolToPrimitive) return toPrimitive;
				if (key === SymbolIterator || key === SymbolAsyncIterator) stop(s, "iterate", "");
				return undefined;
			}
			// Not a thenable: awaiting a placeholder gives the placeholder.
			// toJSON is left to the serializers, which know a placeholder.
			if (key === "then" || key === "toJSON") return undefined;
			return child(s, key);
		},
		has(t, key) { stop(this.s, "has", typeof key === "string" ? key : ""); return false; },
		ownKeys() { stop(this.s, "keys", ""); return []; },
		getOwnPropertyDescriptor() { stop(this.s, "describe", ""); return undefined; },
		set() { stop(this.s, "change", ""); return false; },
		defineProperty() { stop(this.s, "change", ""); return false; },
		deleteProperty() { stop(this.s, "change", ""); return false; },
		setPrototypeOf() { stop(this.s, "change", ""); return false; },
		apply() {
			const s = this.s;
			// A method call, r.items.map(f), needs r.items.
			if (s.parent !== null) stop(s.parent, "call", s.key);
			else stop(s, "call", "");
			return undefined;
		},
		construct() { stop(this.s, "new", ""); return {}; },
	});

	function make(seq, parent, key, depth) {
		const s = { __proto__: null, seq, parent, key, depth, children: null, path: null };
		const p = new ProxyCtor(target, { __proto__: traps, s });
		ReflectApply(WeakMapSet, states, [p, s]);
		return p;
	}
	function child(s, key) {
		let kids = s.children;
		if (kids === null) {
			kids = { __proto__: null };
			s.children = kids;
		}
		let c = kids[key];
		if (c === undefined) {
			if (s.depth >= maxDepth) stop(s, "deep", "");
			c = make(s.seq, s, key, s.depth + 1);
			kids[key] = c;
		}
		return c;
	}

	// How a placeholder shows in logs and error messages:
	// <result of call 2>.entities[0].name
	function isIndex(k) {
		const n = k.length;
		if (n === 0 || n > 15 || (k[0] === "0" && n > 1)) return false;
		for (let i = 0; i < n; i++) if (k[i] < "0" || k[i] > "9") return false;
		return true;
	}
	function isIdentifier(k) {
		const n = k.length;
		if (n === 0) return false;
		for (let i = 0; i < n; i++) {
			const c = k[i];
			const letter = (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_" || c === "$";
			if (!letter && (i === 0 || c < "0" || c > "9")) return false;
		}
		return true;
	}
	function text(s) {
		let out = "<result of call " + s.seq + ">";
		const path = pathOf(s);
		for (let i = 0; i < path.length; i++) {
			const k = path[i];
			if (isIndex(k)) out += "[" + k + "]";
			else if (isIdentifier(k)) out += "." + k;
			else out += "[" + quote(k) + "]";
		}
		return out;
	}

	// Symbolic JSON: a placeholder is written { "$planned": { call, path } },
	// and a key of the value's own that reads "$planned" after one or more
	// "$" gets one "$" more, so that it cannot pass for one. The objects
	// written have no prototype: no toJSON the guest defines applies.
	function reserved(k) {
		const n = k.length;
		if (n < 8) return false;
		for (let i = 0; i < n - 7; i++) if (k[i] !== "$") return false;
		return k[n - 7] === "p" && k[n - 6] === "l" && k[n - 5] === "a" && k[n - 4] === "n" && k[n - 3] === "n" && k[n - 2] === "e" && k[n - 1] === "d";
	}
	function escaped(v, keys) {
		const out = { __proto__: null };
		for (let i = 0; i < keys.length; i++) {
			const k = keys[i];
			ObjectDefineProperty(out, reserved(k) ? "$" + k : k, { __proto__: null, value: v[k], writable: true, enumerable: true, configurable: true });
		}
		return out;
	}

	// internal.symbolic(value) returns [json, flags]: the value's JSON with
	// placeholders written as symbols; flags has 1 when it holds one, 2
	// when a key was escaped.
	internal.symbolic = (value) => {
		let flags = 0;
		const json = symbolicStringify(value, (v) => {
			if (typeof v === "function") {
				const s = ReflectApply(WeakMapGet, states, [v]);
				if (s === undefined) return v;
				flags |= 1;
				return ObjectFreeze({ __proto__: null, $planned: ObjectFreeze({ __proto__: null, call: s.seq, path: pathOf(s) }) });
			}
			if (v === null || typeof v !== "object" || ArrayIsArray(v)) return v;
			const keys = ObjectKeys(v);
			for (let i = 0; i < keys.length; i++) {
				if (reserved(keys[i])) {
					flags |= 2;
					return escaped(v, keys);
				}
			}
			return v;
		});
		return [json, flags];
	};
	// internal.placeholder(seq) is the result of call seq, planned.
	internal.placeholder = (seq) => {
		active = true;
		return make(seq, null, "", 0);
	};
	internal.planning = () => active;
	// internal.needValue stops planning when v is a placeholder: kind says
	// what needs its value (hub.read, a connection).
	internal.needValue = (v, kind) => {
		if (!active) return;
		const s = stateOf(v);
		if (s !== undefined) stop(s, kind, "");
	};
	internal.placeholderText = (v) => {
		if (!active) return undefined;
		const s = stateOf(v);
		return s === undefined ? undefined : text(s);
	};
	internal.setPlaceholderSeen((v) => {
		if (!active) return;
		const s = ReflectApply(WeakMapGet, states, [v]);
		if (s !== undefined) stop(s, "json", "");
	});
})
