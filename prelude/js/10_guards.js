// Guards on native built-ins that allocate or loop without returning to
// JavaScript. A native loop cannot be interrupted, so each guard checks sizes
// before the built-in starts and either fails the run with a limit error or
// falls back to an interruptible JavaScript loop.
(function (bridge, cfg, internal) {
	"use strict";
	const limit = bridge.limit;
	const jsonDepth = bridge.jsonDepth;
	// The caps follow the run's memory limit: a runtime is prepared before
	// its run is known, so they are set again by internal.configure.
	let maxString = cfg.maxStringLength;
	let maxArray = cfg.maxArrayLength;
	let maxBytes = cfg.maxBytes;
	const maxJSONDepth = cfg.maxJSONDepth;
	internal.configure = (c) => {
		maxString = c.maxStringLength;
		maxArray = c.maxArrayLength;
		maxBytes = c.maxBytes;
	};

	const ObjectDefineProperty = Object.defineProperty;
	const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
	const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
	const ObjectSetPrototypeOf = Object.setPrototypeOf;
	const ReflectApply = Reflect.apply;
	const ReflectConstruct = Reflect.construct;
	const MathMax = Math.max;
	const MathMin = Math.min;
	const MathTrunc = Math.trunc;
	const NumberIsFinite = Number.isFinite;
	const ArrayIsArray = Array.isArray;
	const StringCtor = String;
	const StringIndexOf = String.prototype.indexOf;
	const TypeErrorCtor = TypeError;
	const RangeErrorCtor = RangeError;

	function toLength(v) {
		let n = +v;
		if (n !== n || n <= 0) return 0;
		if (n === Infinity) return 2 ** 53 - 1;
		return MathMin(MathTrunc(n), 2 ** 53 - 1);
	}
	function toInteger(v) {
		let n = +v;
		if (n !== n) return 0;
		if (n === Infinity || n === -Infinity) return n;
		return MathTrunc(n);
	}
	function lengthOf(o) {
		if (o === null || o === undefined) return 0;
		return toLength(o.length);
	}
	function tooLong(what, n, cap) {
		limit("memory_limit", what + " would hold " + n + " elements, above the sandbox cap of " + cap);
	}
	function tooBig(what, n, atLeast) {
		limit("memory_limit", what + " would build a string of " + (atLeast ? "at least " : "") + n + " characters, above the sandbox cap of " + maxString);
	}
	function replaceMethod(proto, name, make) {
		const d = ObjectGetOwnPropertyDescriptor(proto, name);
		if (!d || typeof d.value !== "function") return;
		const original = d.value;
		const wrapped = make(original);
		ObjectDefineProperty(proto, name, { value: wrapped, writable: true, enumerable: false, configurable: true });
	}

	// Strings.
	const SP = String.prototype;
	replaceMethod(SP, "repeat", (orig) => function repeat(count) {
		const s = StringCtor(this);
		const n = toInteger(count);
		if (n > 0 && NumberIsFinite(n) && s.length * n > maxString) tooBig("String.prototype.repeat", s.length * n);
		return ReflectApply(orig, s, [count]);
	});
	for (const name of ["padStart", "padEnd"]) {
		replaceMethod(SP, name, (orig) => function (maxLength, fill) {
			const n = toLength(maxLength);
			if (n > maxString) tooBig("String.prototype." + name, n);
			return ReflectApply(orig, this, [maxLength, fill]);
		});
	}
	for (const name of ["replace", "replaceAll"]) {
		replaceMethod(SP, name, (orig) => function (pattern, replacement) {
			if (typeof pattern === "string" && typeof replacement === "string" && replacement.length > pattern.length) {
				const s = StringCtor(this);
				const step = MathMax(pattern.length, 1);
				const bound = s.length + (s.length / step + 1) * replacement.length;
				if (bound > maxString) {
					const grow = replacement.length - pattern.length;
					let count;
					if (pattern.length === 0) count = name === "replaceAll" ? s.length + 1 : 1;
					else if (name === "replace") count = ReflectApply(StringIndexOf, s, [pattern]) === -1 ? 0 : 1;
					else {
						// Counted in an interruptible loop that stops at the
						// first match past what the cap allows: the native
						// replaceAll cannot be interrupted, and counting with it
						// cost as much as replacing (a second a million matches).
						const allowed = MathTrunc((maxString - s.length) / grow);
						count = 0;
						for (let i = ReflectApply(StringIndexOf, s, [pattern]); i !== -1 && count <= allowed; i = ReflectApply(StringIndexOf, s, [pattern, i + pattern.length])) count++;
						if (count > allowed) tooBig("String.prototype." + name, s.length + count * grow, true);
					}
					const exact = s.length + count * grow;
					if (exact > maxString) tooBig("String.prototype." + name, exact);
				}
			}
			return ReflectApply(orig, this, [pattern, replacement]);
		});
	}

	// Arrays: every method checks the length of its receiver first. The
	// wrappers pass their arguments on as a rest array: an arguments object
	// costs goja about twice as much on every call.
	const AP = Array.prototype;
	const searchMethods = {
		includes(search, from) {
			const o = Object(this);
			const len = lengthOf(o);
			let k = toInteger(from);
			if (k < 0) k = MathMax(len + k, 0);
			for (; k < len; k++) {
				const v = o[k];
				if (v === search || (v !== v && search !== search)) return true;
			}
			return false;
		},
		indexOf(search, from) {
			const o = Object(this);
			const len = lengthOf(o);
			let k = toInteger(from);
			if (k < 0) k = MathMax(len + k, 0);
			for (; k < len; k++) if (k in o && o[k] === search) return k;
			return -1;
		},
		lastIndexOf(search, from) {
			const o = Object(this);
			const len = lengthOf(o);
			let k = arguments.length > 1 ? toInteger(from) : len - 1;
			if (k < 0) k = len + k; else if (k > len - 1) k = len - 1;
			for (; k >= 0; k--) if (k in o && o[k] === search) return k;
			return -1;
		},
	};
	// Skipped: iterators are lazy, toString goes through join, and push, pop
	// and at touch a fixed number of elements whatever the length (a push
	// past 2 ** 32 - 1 is a RangeError); they are the methods guest loops
	// call most.
	const lazy = new Set(["constructor", "values", "keys", "entries", "toString", "toLocaleString", "push", "pop", "at"]);
	// The methods that need only a length check; bridge.guardLengths
	// replaces them with native guards, against the same cap as maxArray.
	const checked = [];
	for (const name of ObjectGetOwnPropertyNames(AP)) {
		if (lazy.has(name)) continue;
		if (name in searchMethods) {
			const slow = searchMethods[name];
			replaceMethod(AP, name, (orig) => function (...args) {
				if (lengthOf(this) > maxArray) return ReflectApply(slow, this, args);
				return ReflectApply(orig, this, args);
			});
			continue;
		}
		if (name === "sort") {
			// Sort a copy, then write it back: a comparator that changes the
			// array being sorted never reaches the native sort.
			replaceMethod(AP, name, (orig) => function sort(compare) {
				if (compare !== undefined && typeof compare !== "function") {
					throw new TypeErrorCtor("The comparison function must be either a function or undefined");
				}
				const o = Object(this);
				const len = lengthOf(o);
				if (len > maxArray) tooLong("Array.prototype.sort", len, maxArray);
				const copy = [];
				for (let i = 0; i < len; i++) if (i in o) copy.push(o[i]);
				const holes = len - copy.length;
				ReflectApply(orig, copy, [compare]);
				let i = 0;
				for (; i < copy.length; i++) o[i] = copy[i];
				for (let j = 0; j < holes; j++) delete o[i + j];
				return o;
			});
			continue;
		}
		if (name === "toSorted") {
			replaceMethod(AP, name, () => function toSorted(compare) {
				if (compare !== undefined && typeof compare !== "function") {
					throw new TypeErrorCtor("The comparison function must be either a function or undefined");
				}
				const o = Object(this);
				const len = lengthOf(o);
				if (len > maxArray) tooLong("Array.prototype.toSorted", len, maxArray);
				const copy = [];
				for (let i = 0; i < len; i++) copy.push(o[i]);
				return ReflectApply(AP.sort, copy, [compare]);
			});
			continue;
		}
		if (name === "flat") {
			replaceMethod(AP, name, (orig) => function flat(depth) {
				const len = lengthOf(this);
				if (len > maxArray) tooLong("Array.prototype.flat", len, maxArray);
				const d = depth === undefined ? 1 : toInteger(depth);
				if (d <= 64) return ReflectApply(orig, this, [depth]);
				// Deep flattening recurses in JavaScript, where the call stack limit applies.
				const out = [];
				const walk = (a, left) => {
					const n = lengthOf(a);
					for (let i = 0; i < n; i++) {
						if (!(i in a)) continue;
						const v = a[i];
						if (left > 0 && ArrayIsArray(v)) walk(v, left - 1);
						else {
							if (out.length >= maxArray) tooLong("Array.prototype.flat", out.length + 1, maxArray);
							out.push(v);
						}
					}
				};
				walk(Object(this), d);
				return out;
			});
			continue;
		}
		if (name === "join") {
			replaceMethod(AP, name, (orig) => function join(sep) {
				const len = lengthOf(this);
				if (len > maxArray) tooLong("Array.prototype.join", len, maxArray);
				const sepLen = sep === undefined ? 1 : StringCtor(sep).length;
				let total = len > 0 ? (len - 1) * sepLen : 0;
				if (total > maxString) tooBig("Array.prototype.join", total);
				for (let i = 0; i < len; i++) {
					const v = this[i];
					if (typeof v === "string") {
						total += v.length;
						if (total > maxString) tooBig("Array.prototype.join", total);
					}
				}
				return ReflectApply(orig, this, [sep]);
			});
			continue;
		}
		if (name === "fill") {
			replaceMethod(AP, name, (orig) => function fill(value, start, end) {
				const len = lengthOf(this);
				let s = toInteger(start), e = end === undefined ? len : toInteger(end);
				s = s < 0 ? MathMax(len + s, 0) : MathMin(s, len);
				e = e < 0 ? MathMax(len + e, 0) : MathMin(e, len);
				if (e - s > maxArray) tooLong("Array.prototype.fill", e - s, maxArray);
				return ReflectApply(orig, this, arguments);
			});
			continue;
		}
		if (name === "concat") {
			replaceMethod(AP, name, (orig) => function concat() {
				let total = lengthOf(this);
				for (let i = 0; i < arguments.length; i++) {
					const a = arguments[i];
					total += ArrayIsArray(a) ? lengthOf(a) : 1;
				}
				if (total > maxArray) tooLong("Array.prototype.concat", total, maxArray);
				return ReflectApply(orig, this, arguments);
			});
			continue;
		}
		// Every other own property of Array.prototype but length is a
		// method; read directly, not through a descriptor, which would be
		// one more object per method in every runtime.
		if (typeof AP[name] === "function") checked.push(name);
	}
	bridge.guardLengths(AP, checked);
	// toString and toLocaleString call join through the prototype, so they are
	// covered by the join guard.

	// Array(n) and new Array(n) create sparse arrays; the guards above stop the
	// loops over them. Array.from over a huge array-like loops natively.
	const ArrayFrom = Array.from;
	ObjectDefineProperty(Array, "from", {
		value: function from(items, mapFn, thisArg) {
			if (items !== null && items !== undefined && typeof items !== "string" && items[Symbol.iterator] === undefined) {
				const len = lengthOf(items);
				if (len > maxArray) tooLong("Array.from", len, maxArray);
			}
			return ReflectApply(ArrayFrom, this, arguments);
		},
		writable: true, enumerable: false, configurable: true,
	});

	// ArrayBuffer and typed arrays allocate their full size up front. Each
	// constructor is replaced by a Proxy; the twelve share one handler and
	// one hasInstance, which find their constructor in allocators.
	const FunctionHasInstance = Function.prototype[Symbol.hasInstance];
	// Nothing the guest can replace is looked up when a guard runs: the
	// Map is read through its get captured now, and the entry by index.
	const NumberCtor = Number;
	const MapGet = Map.prototype.get;
	const allocators = new Map(); // constructor and its Proxy -> [constructor, name, bytes per element, Proxy]
	const allocatorOf = (c) => ReflectApply(MapGet, allocators, [c]);
	// What was allocated is reported to bridge.allocated, which checks the
	// heap within the turn every few megabytes: a loop of smaller arrays
	// would otherwise outrun the sampling memory watcher. A view on an
	// existing buffer allocates no bytes.
	const allocated = bridge.allocated;
	const bufferByteLength = ObjectGetOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
	const viewByteLength = ObjectGetOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "byteLength").get;
	function isBuffer(v) {
		try { ReflectApply(bufferByteLength, v, []); return true; } catch (e) { return false; }
	}
	const allocatorHandler = {
		construct(target, args, newTarget) {
			const entry = allocatorOf(target);
			const name = entry[1], bytesPerElement = entry[2], guarded = entry[3];
			const a = args[0];
			if (typeof a === "number" || typeof a === "bigint" || a === undefined) {
				const n = toLength(NumberCtor(a));
				if (n * bytesPerElement > maxBytes) {
					limit("memory_limit", "new " + name + "(" + n + ") would allocate " + n * bytesPerElement + " bytes, above the sandbox cap of " + maxBytes);
				}
			}
			const made = ReflectConstruct(target, args, newTarget === guarded ? target : newTarget);
			if (name === "ArrayBuffer") allocated(ReflectApply(bufferByteLength, made, []));
			else if (!isBuffer(a)) allocated(ReflectApply(viewByteLength, made, []));
			return made;
		},
	};
	// instanceof on a Proxy of a constructor needs an own hasInstance; this
	// is the constructor or its Proxy.
	const hasInstance = {
		[Symbol.hasInstance](v) {
			const entry = allocatorOf(this);
			return ReflectApply(FunctionHasInstance, entry === undefined ? this : entry[0], [v]);
		},
	}[Symbol.hasInstance];
	for (const [name, size] of [["ArrayBuffer", 1], ["Uint8Array", 1], ["Uint8ClampedArray", 1], ["Int8Array", 1], ["Uint16Array", 2], ["Int16Array", 2], ["Uint32Array", 4], ["Int32Array", 4], ["Float32Array", 4], ["Float64Array", 8], ["BigInt64Array", 8], ["BigUint64Array", 8]]) {
		const Ctor = globalThis[name];
		ObjectDefineProperty(Ctor, Symbol.hasInstance, { value: hasInstance, writable: false, enumerable: false, configurable: true });
		const guarded = new Proxy(Ctor, allocatorHandler);
		const entry = [Ctor, name, size, guarded];
		allocators.set(Ctor, entry);
		allocators.set(guarded, entry);
		ObjectDefineProperty(Ctor.prototype, "constructor", { value: guarded, writable: true, enumerable: false, configurable: true });
		ObjectDefineProperty(globalThis, name, { value: guarded, writable: true, enumerable: false, configurable: true });
	}

	// JSON: parse checks nesting before the recursive native parser runs;
	// stringify tracks depth through a replacer, since the native serializer
	// recurses in Go.
	// Bound once, before any guest code runs: a direct call that no later
	// change to Function.prototype or Reflect can reach.
	const JSONParse = JSON.parse.bind(JSON);
	const JSONStringify = JSON.stringify.bind(JSON);
	const JSONRawJSON = JSON.rawJSON;
	function parse(text, reviver) {
		const s = StringCtor(text);
		if (jsonDepth(s) > maxJSONDepth) {
			throw new RangeErrorCtor("JSON.parse: input nests deeper than " + maxJSONDepth + " levels");
		}
		return JSONParse(s, reviver);
	}
	function stringify(value, replacer, space) {
		return stringifyWith(value, replacer, space, false, null);
	}
	// Planning (15_plan.js) sets placeholderSeen: it is called with every
	// function value a serializer meets, and stops planning when it is a
	// placeholder, whose value JSON would need.
	let placeholderSeen = null;
	internal.setPlaceholderSeen = (f) => { placeholderSeen = f; };
	// exact writes a BigInt as the JSON integer it holds, where
	// JSON.stringify throws: the hub's serializer of tool arguments and of
	// the run's result, so an integer beyond 2^53 that arrived as a BigInt
	// leaves as written. symbolic, when not null, is planning's: it gets
	// every value after toJSON and the replacer and returns what to write
	// in its place (a placeholder's symbol, an object with escaped keys).
	function stringifyWith(value, replacer, space, exact, symbolic) {
		let userReplacer = null;
		let allow = null;
		if (typeof replacer === "function") userReplacer = replacer;
		else if (ArrayIsArray(replacer)) {
			allow = new Set();
			for (const k of replacer) {
				if (typeof k === "string" || typeof k === "number") allow.add(StringCtor(k));
				else if (k instanceof String || k instanceof Number) allow.add(StringCtor(k));
			}
		}
		// The objects being serialized, outermost first; the guarded array
		// methods are not needed on this private stack, and without a
		// prototype no setter the guest put on Array.prototype sees them.
		const holders = [];
		ObjectSetPrototypeOf(holders, null);
		let depth = 0;
		let root = true;
		const track = function (key, v) {
			if (root) root = false;
			else {
				if (allow !== null && !ArrayIsArray(this) && !allow.has(key)) return undefined;
				while (depth > 0 && holders[depth - 1] !== this) depth--;
			}
			if (userReplacer !== null) v = ReflectApply(userReplacer, this, [key, v]);
			if (exact && typeof v === "bigint") return JSONRawJSON(StringCtor(v));
			if (symbolic !== null) v = symbolic(v);
			else if (typeof v === "function" && placeholderSeen !== null) placeholderSeen(v);
			if (v !== null && typeof v === "object") {
				holders[depth++] = v;
				if (depth > maxJSONDepth) {
					throw new RangeErrorCtor("JSON.stringify: value nests deeper than " + maxJSONDepth + " levels");
				}
			}
			return v;
		};
		return JSONStringify(value, track, space);
	}
	ObjectDefineProperty(parse, "name", { value: "parse" });
	ObjectDefineProperty(stringify, "name", { value: "stringify" });
	ObjectDefineProperty(JSON, "parse", { value: parse, writable: true, enumerable: false, configurable: true });
	ObjectDefineProperty(JSON, "stringify", { value: stringify, writable: true, enumerable: false, configurable: true });
	internal.parse = parse;
	internal.stringify = (value) => stringifyWith(value, undefined, undefined, true, null);
	internal.symbolicStringify = (value, symbolic) => stringifyWith(value, undefined, undefined, true, symbolic);
})
