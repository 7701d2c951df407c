// The guest's globals: console, timers, the logical Date, seeded crypto,
// encoding helpers, structuredClone, ToolError, hub and the tool namespaces.
(function (bridge, cfg, internal) {
	"use strict";
	const ObjectDefineProperty = Object.defineProperty;
	const ObjectFreeze = Object.freeze;
	const ObjectSetPrototypeOf = Object.setPrototypeOf;
	const ObjectKeys = Object.keys;
	const ObjectGetPrototypeOf = Object.getPrototypeOf;
	const ObjectPrototype = Object.prototype;
	const ReflectApply = Reflect.apply;
	const ReflectGet = Reflect.get;
	const ArrayIsArray = Array.isArray;
	const StringCtor = String;
	const NumberCtor = Number;
	const TypeErrorCtor = TypeError;
	const RangeErrorCtor = RangeError;
	const ErrorCtor = Error;
	const MapCtor = Map;
	const SetCtor = Set;
	const DateCtor = Date;
	const RegExpCtor = RegExp;
	const ProxyCtor = Proxy;
	const PromiseCtor = Promise;
	const PromiseReject = Promise.reject;
	const Uint8ArrayCtor = Uint8Array;
	const ArrayBufferCtor = ArrayBuffer;
	const ArrayBufferIsView = ArrayBuffer.isView;
	const stringify = internal.stringify;
	// Planning (15_plan.js): placeholders for results the host planned.
	const symbolic = internal.symbolic;
	const planning = internal.planning;
	const needValue = internal.needValue;
	const placeholderText = internal.placeholderText;
	const MapProto = Map.prototype;
	const SetProto = Set.prototype;
	const TypedArrayProto = ObjectGetPrototypeOf(Uint8Array.prototype);
	const typedArrayTag = Object.getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag).get;
	const mapSize = Object.getOwnPropertyDescriptor(MapProto, "size").get;
	const setSize = Object.getOwnPropertyDescriptor(SetProto, "size").get;
	const mapEntries = MapProto.entries;
	const setValues = SetProto.values;
	const errorToString = Error.prototype.toString;
	const dateGetTime = Date.prototype.getTime;
	const dateToISOString = Date.prototype.toISOString;
	const regexpToString = RegExp.prototype.toString;
	const functionToString = Function.prototype.toString;

	function define(name, value) {
		ObjectDefineProperty(globalThis, name, { value, writable: true, enumerable: false, configurable: true });
	}
	function defineFixed(name, value) {
		ObjectDefineProperty(globalThis, name, { value, writable: false, enumerable: false, configurable: false });
	}
	function isMap(v) { try { ReflectApply(mapSize, v, []); return true; } catch (e) { return false; } }
	function isSet(v) { try { ReflectApply(setSize, v, []); return true; } catch (e) { return false; } }
	function isDate(v) { try { ReflectApply(dateGetTime, v, []); return true; } catch (e) { return false; } }
	function isRegExp(v) { return v instanceof RegExpCtor; }
	function isError(v) { return v instanceof ErrorCtor; }

	// console: Node-like formatting, captured by the host within a byte budget.
	const maxItems = 100;
	function quote(s) {
		return "'" + s.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n") + "'";
	}
	const identRe = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
	function inspect(v, depth, seen) {
		switch (typeof v) {
			case "string": return quote(v);
			case "number": return (v === 0 && 1 / v < 0) ? "-0" : StringCtor(v);
			case "bigint": return StringCtor(v) + "n";
			case "boolean": case "undefined": return StringCtor(v);
			case "symbol": return v.toString();
			case "function": {
				const placeholder = placeholderText(v);
				if (placeholder !== undefined) return placeholder;
				let src = "";
				try { src = ReflectApply(functionToString, v, []); } catch (e) { }
				const name = typeof v.name === "string" && v.name !== "" ? v.name : "";
				if (src.startsWith("class")) return "[class " + (name || "(anonymous)") + "]";
				return name ? "[Function: " + name + "]" : "[Function (anonymous)]";
			}
		}
		if (v === null) return "null";
		if (seen.includes(v)) return "[Circular]";
		if (isError(v)) {
			const stack = v.stack;
			return typeof stack === "string" && stack !== "" ? stack : ReflectApply(errorToString, v, []);
		}
		if (isDate(v)) {
			const t = ReflectApply(dateGetTime, v, []);
			return t !== t ? "Invalid Date" : ReflectApply(dateToISOString, v, []);
		}
		if (isRegExp(v)) return ReflectApply(regexpToString, v, []);
		const next = seen.concat([v]);
		if (ArrayIsArray(v)) {
			if (v.length === 0) return "[]";
			if (depth > 2) return "[Array]";
			const parts = [];
			const n = v.length < maxItems ? v.length : maxItems;
			for (let i = 0; i < n; i++) parts.push(i in v ? inspect(v[i], depth + 1, next) : "<empty>");
			if (v.length > maxItems) parts.push("... " + (v.length - maxItems) + " more items");
			return "[ " + parts.join(", ") + " ]";
		}
		if (ArrayBufferIsView(v) && !(v instanceof DataView)) {
			const tag = ReflectApply(typedArrayTag, v, []);
			const parts = [];
			const n = v.length < maxItems ? v.length : maxItems;
			for (let i = 0; i < n; i++) parts.push(StringCtor(v[i]));
			if (v.length > maxItems) parts.push("... " + (v.length - maxItems) + " more items");
			return tag + "(" + v.length + ") [ " + parts.join(", ") + " ]";
		}
		if (isMap(v)) {
			const size = ReflectApply(mapSize, v, []);
			if (depth > 2) return "[Map]";
			const parts = [];
			for (const [k, val] of ReflectApply(mapEntries, v, [])) {
				if (parts.length >= maxItems) { parts.push("..."); break; }
				parts.push(inspect(k, depth + 1, next) + " => " + inspect(val, depth + 1, next));
			}
			return "Map(" + size + ") {" + (parts.length ? " " + parts.join(", ") + " " : "") + "}";
		}
		if (isSet(v)) {
			const size = ReflectApply(setSize, v, []);
			if (depth > 2) return "[Set]";
			const parts = [];
			for (const val of ReflectApply(setValues, v, [])) {
				if (parts.length >= maxItems) { parts.push("..."); break; }
				parts.push(inspect(val, depth + 1, next));
			}
			return "Set(" + size + ") {" + (parts.length ? " " + parts.join(", ") + " " : "") + "}";
		}
		const keys = ObjectKeys(v);
		if (keys.length === 0) return "{}";
		if (depth > 2) return "[Object]";
		const parts = [];
		for (const k of keys) {
			if (parts.length >= maxItems) { parts.push("... " + (keys.length - maxItems) + " more properties"); break; }
			parts.push((identRe.test(k) ? k : quote(k)) + ": " + inspect(v[k], depth + 1, next));
		}
		return "{ " + parts.join(", ") + " }";
	}
	function format(args) {
		const parts = [];
		for (let i = 0; i < args.length; i++) {
			const a = args[i];
			parts.push(typeof a === "string" ? a : inspect(a, 0, []));
		}
		return parts.join(" ");
	}
	const log = bridge.log;
	const console = {};
	for (const level of ["log", "info", "warn", "error", "debug"]) {
		const f = {
			[level](...args) {
				log(level, format(args));
			},
		}[level];
		console[level] = f;
	}
	ObjectFreeze(console);
	define("console", console);
	internal.inspect = (v) => inspect(v, 0, []);

	// Timers on the logical clock. Delays above the maximum are an error.
	const maxDelay = cfg.maxTimerDelay;
	const setTimer = bridge.setTimer;
	const clearTimer = bridge.clearTimer;
	define("setTimeout", function setTimeout(callback, delay, ...args) {
		if (typeof callback !== "function") {
			throw new TypeErrorCtor("setTimeout: the callback must be a function");
		}
		let ms = NumberCtor(delay);
		if (ms !== ms || ms < 0) ms = 0;
		if (ms > maxDelay) {
			bridge.limit("timer_limit", "setTimeout delay of " + ms + " ms is above the maximum of " + maxDelay + " ms");
			return 0;
		}
		return setTimer(ms, () => ReflectApply(callback, undefined, args));
	});
	define("clearTimeout", function clearTimeout(id) {
		if (typeof id === "number") clearTimer(id);
	});

	// Date on the logical clock. The host sets the clock; local time is UTC.
	const zoneless = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
	function fixZone(s) { return zoneless.test(s) ? s + "Z" : s; }
	const DP = DateCtor.prototype;
	const dateToUTCString = DP.toUTCString;
	const GuestDate = function Date(...args) {
		if (new.target === undefined) {
			return ReflectApply(dateToUTCString, new DateCtor(), []);
		}
		let d;
		if (args.length === 0) d = new DateCtor();
		else if (args.length === 1) d = new DateCtor(typeof args[0] === "string" ? fixZone(args[0]) : args[0]);
		else d = new DateCtor(ReflectApply(DateCtor.UTC, DateCtor, args));
		if (new.target !== GuestDate) Object.setPrototypeOf(d, new.target.prototype);
		return d;
	};
	ObjectDefineProperty(GuestDate, "prototype", { value: DP, writable: false, enumerable: false, configurable: false });
	ObjectDefineProperty(GuestDate, "length", { value: 7 });
	ObjectDefineProperty(DP, "constructor", { value: GuestDate, writable: true, enumerable: false, configurable: true });
	ObjectDefineProperty(GuestDate, "now", { value: DateCtor.now, writable: true, enumerable: false, configurable: true });
	ObjectDefineProperty(GuestDate, "UTC", { value: DateCtor.UTC, writable: true, enumerable: false, configurable: true });
	const dateParse = DateCtor.parse;
	ObjectDefineProperty(GuestDate, "parse", {
		value: function parse(s) { return ReflectApply(dateParse, DateCtor, [fixZone(StringCtor(s))]); },
		writable: true, enumerable: false, configurable: true,
	});
	for (const part of ["FullYear", "Month", "Date", "Day", "Hours", "Minutes", "Seconds", "Milliseconds"]) {
		const get = DP["getUTC" + part];
		ObjectDefineProperty(DP, "get" + part, { value: { ["get" + part]() { return ReflectApply(get, this, []); } }["get" + part], writable: true, enumerable: false, configurable: true });
		const set = DP["setUTC" + part];
		if (set) ObjectDefineProperty(DP, "set" + part, { value: { ["set" + part](...a) { return ReflectApply(set, this, a); } }["set" + part], writable: true, enumerable: false, configurable: true });
	}
	ObjectDefineProperty(DP, "getTimezoneOffset", { value: function getTimezoneOffset() { ReflectApply(dateGetTime, this, []); return 0; }, writable: true, enumerable: false, configurable: true });
	const utcFormat = {
		toString() { return ReflectApply(dateToUTCString, this, []); },
		toDateString() { return ReflectApply(dateToUTCString, this, []).slice(0, 16); },
		toTimeString() { return ReflectApply(dateToUTCString, this, []).slice(17) ; },
		toLocaleString() { return ReflectApply(dateToISOString, this, []); },
		toLocaleDateString() { return ReflectApply(dateToISOString, this, []).slice(0, 10); },
		toLocaleTimeString() { return ReflectApply(dateToISOString, this, []).slice(11, 19); },
	};
	for (const k of ObjectKeys(utcFormat)) {
		ObjectDefineProperty(DP, k, { value: utcFormat[k], writable: true, enumerable: false, configurable: true });
	}
	define("Date", GuestDate);

	// Seeded randomness.
	const randomU32 = bridge.randomU32;
	function randomBytes(u8) {
		for (let i = 0; i < u8.length; i += 4) {
			let r = randomU32();
			for (let j = i; j < i + 4 && j < u8.length; j++) {
				u8[j] = r & 0xff;
				r >>>= 8;
			}
		}
	}
	const digits = "0123456789abcdef";
	const crypto = {
		randomUUID() {
			const b = new Uint8ArrayCtor(16);
			randomBytes(b);
			b[6] = (b[6] & 0x0f) | 0x40;
			b[8] = (b[8] & 0x3f) | 0x80;
			let s = "";
			for (let i = 0; i < 16; i++) {
				if (i === 4 || i === 6 || i === 8 || i === 10) s += "-";
				s += digits[b[i] >> 4] + digits[b[i] & 15];
			}
			return s;
		},
		getRandomValues(array) {
			if (!ArrayBufferIsView(array) || array instanceof DataView) {
				throw new TypeErrorCtor("crypto.getRandomValues: argument must be an integer typed array");
			}
			const tag = ReflectApply(typedArrayTag, array, []);
			if (tag === "Float32Array" || tag === "Float64Array") {
				throw new TypeErrorCtor("crypto.getRandomValues: argument must be an integer typed array");
			}
			if (array.byteLength > 65536) {
				const e = new ErrorCtor("crypto.getRandomValues: " + array.byteLength + " bytes requested, the maximum is 65536");
				e.name = "QuotaExceededError";
				throw e;
			}
			randomBytes(new Uint8ArrayCtor(array.buffer, array.byteOffset, array.byteLength));
			return array;
		},
	};
	ObjectFreeze(crypto);
	define("crypto", crypto);

	// Encoding.
	const utf8Encode = bridge.utf8Encode;
	const utf8Decode = bridge.utf8Decode;
	class TextEncoder {
		get encoding() { return "utf-8"; }
		encode(input = "") {
			return new Uint8ArrayCtor(utf8Encode(StringCtor(input)));
		}
	}
	const utf8Labels = new SetCtor(["utf-8", "utf8", "unicode-1-1-utf-8"]);
	const decoderFatal = new WeakMap();
	class TextDecoder {
		constructor(label = "utf-8", options = undefined) {
			const l = StringCtor(label).trim().toLowerCase();
			if (!utf8Labels.has(l)) throw new RangeErrorCtor("TextDecoder: only utf-8 is supported, not " + quote(l));
			decoderFatal.set(this, !!(options && options.fatal));
		}
		get encoding() { return "utf-8"; }
		get fatal() { return decoderFatal.get(this) === true; }
		decode(input = undefined) {
			if (input === undefined) return "";
			let bytes;
			if (input instanceof ArrayBufferCtor) bytes = new Uint8ArrayCtor(input);
			else if (ArrayBufferIsView(input)) bytes = new Uint8ArrayCtor(input.buffer, input.byteOffset, input.byteLength);
			else throw new TypeErrorCtor("TextDecoder.decode: input must be an ArrayBuffer or a view of one");
			return utf8Decode(bytes, decoderFatal.get(this) === true);
		}
	}
	define("TextEncoder", TextEncoder);
	define("TextDecoder", TextDecoder);
	const nativeAtob = bridge.atob;
	const nativeBtoa = bridge.btoa;
	define("atob", function atob(data) {
		if (arguments.length === 0) throw new TypeErrorCtor("atob: 1 argument required");
		return nativeAtob(StringCtor(data));
	});
	define("btoa", function btoa(data) {
		if (arguments.length === 0) throw new TypeErrorCtor("btoa: 1 argument required");
		return nativeBtoa(StringCtor(data));
	});

	// structuredClone for the value types a program handles.
	function cloneError(message) {
		const e = new ErrorCtor(message);
		e.name = "DataCloneError";
		return e;
	}
	function clone(v, memo) {
		needValue(v, "clone");
		if (typeof v === "function") throw cloneError("structuredClone: " + inspect(v, 0, []) + " could not be cloned");
		if (typeof v === "symbol") throw cloneError("structuredClone: " + v.toString() + " could not be cloned");
		if (v === null || typeof v !== "object") return v;
		if (memo.has(v)) return memo.get(v);
		let out;
		if (ArrayIsArray(v)) {
			out = new Array(v.length);
			memo.set(v, out);
			for (const k of ObjectKeys(v)) out[k] = clone(v[k], memo);
			return out;
		}
		if (isDate(v)) { out = new DateCtor(ReflectApply(dateGetTime, v, [])); memo.set(v, out); return out; }
		if (isRegExp(v)) { out = new RegExpCtor(v.source, v.flags); memo.set(v, out); return out; }
		if (isMap(v)) {
			out = new MapCtor();
			memo.set(v, out);
			for (const [k, val] of ReflectApply(mapEntries, v, [])) out.set(clone(k, memo), clone(val, memo));
			return out;
		}
		if (isSet(v)) {
			out = new SetCtor();
			memo.set(v, out);
			for (const val of ReflectApply(setValues, v, [])) out.add(clone(val, memo));
			return out;
		}
		if (v instanceof ArrayBufferCtor) { out = v.slice(0); memo.set(v, out); return out; }
		if (ArrayBufferIsView(v)) {
			if (v instanceof DataView) { out = new DataView(clone(v.buffer, memo), v.byteOffset, v.byteLength); memo.set(v, out); return out; }
			out = v.slice(); memo.set(v, out); return out;
		}
		if (isError(v)) {
			out = new ErrorCtor(StringCtor(v.message));
			memo.set(v, out);
			const name = StringCtor(v.name);
			if (["Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"].includes(name)) out.name = name;
			if (typeof v.stack === "string") out.stack = v.stack;
			return out;
		}
		if (v instanceof Boolean || v instanceof Number || v instanceof String) { out = Object(v.valueOf()); memo.set(v, out); return out; }
		if (v instanceof Promise || v instanceof WeakMap || v instanceof WeakSet) {
			throw cloneError("structuredClone: " + inspect(v, 0, []) + " could not be cloned");
		}
		out = {};
		memo.set(v, out);
		for (const k of ObjectKeys(v)) out[k] = clone(v[k], memo);
		return out;
	}
	define("structuredClone", function structuredClone(value) {
		if (arguments.length === 0) throw new TypeErrorCtor("structuredClone: 1 argument required");
		return clone(value, new MapCtor());
	});

	// ToolError: how a failed tool call rejects.
	class ToolError extends ErrorCtor {
		constructor(message, details = undefined) {
			super(message === undefined ? "" : StringCtor(message));
			const d = details !== null && typeof details === "object" ? details : {};
			this.code = d.code === undefined ? "tool_error" : StringCtor(d.code);
			this.address = d.address === undefined ? "" : StringCtor(d.address);
			this.status = d.status === undefined ? 0 : NumberCtor(d.status);
			this.hint = d.hint === undefined ? "" : StringCtor(d.hint);
			this.retryable = d.retryable === true;
		}
	}
	ObjectDefineProperty(ToolError.prototype, "name", { value: "ToolError", writable: true, enumerable: false, configurable: true });
	ObjectFreeze(ToolError.prototype);
	ObjectFreeze(ToolError);
	defineFixed("ToolError", ToolError);
	internal.describe = (v) => {
		let s = inspect(v, 0, []);
		if (v instanceof ToolError) {
			// After the message, before the stack frames.
			const suffix = " [code: " + v.code + (v.address ? ", address: " + v.address : "") + "]";
			const nl = s.indexOf("\n");
			s = nl < 0 ? s + suffix : s.slice(0, nl) + suffix + s.slice(nl);
		}
		return s;
	};
	internal.toolErrorOf = (v) => (v instanceof ToolError ? [StringCtor(v.code), StringCtor(v.hint)] : undefined);
	internal.makeToolError = (code, message, address, hint, status, retryable) =>
		new ToolError(message, { code, address, hint, status, retryable });

	// hub.search, hub.describe and hub.read.
	const search = bridge.search;
	const describe = bridge.describe;
	const read = bridge.read;
	const NumberIsSafeInteger = Number.isSafeInteger;
	const StringSplit = String.prototype.split;
	const readUsage = "the options are { offset, length } (a slice, in bytes) or { path } (such as \"rows.0.name\")";
	// readOptions checks hub.read's options and returns them as the
	// bridge's JSON: { slice, offset, length } or { path: [keys] }.
	function readOptions(options) {
		if (options === undefined) return "{}";
		needValue(options, "hub.read");
		if (options === null || typeof options !== "object" || ArrayIsArray(options)) {
			throw new TypeErrorCtor("hub.read: " + readUsage);
		}
		const keys = ObjectKeys(options);
		for (let i = 0; i < keys.length; i++) {
			const k = keys[i];
			if (k !== "offset" && k !== "length" && k !== "path") throw new TypeErrorCtor("hub.read: unknown option \"" + k + "\"; " + readUsage);
		}
		const offset = options.offset, length = options.length, path = options.path;
		needValue(offset, "hub.read");
		needValue(length, "hub.read");
		needValue(path, "hub.read");
		if (path !== undefined) {
			if (offset !== undefined || length !== undefined) throw new TypeErrorCtor("hub.read: pass { path } or { offset, length }, not both");
			const segs = [];
			if (typeof path === "string") {
				if (path !== "") {
					const parts = ReflectApply(StringSplit, path, ["."]);
					for (let i = 0; i < parts.length; i++) segs[i] = parts[i];
				}
			} else if (ArrayIsArray(path)) {
				for (let i = 0; i < path.length; i++) {
					const s = path[i];
					needValue(s, "hub.read");
					if (typeof s === "string") segs[i] = s;
					else if (typeof s === "number" && NumberIsSafeInteger(s) && s >= 0) segs[i] = StringCtor(s);
					else throw new TypeErrorCtor("hub.read: path[" + i + "] must be a key or an array index");
				}
			} else {
				throw new TypeErrorCtor("hub.read: path must be a string such as \"rows.0.name\" or an array such as [\"rows\", 0, \"name\"]");
			}
			return stringify({ path: segs });
		}
		if (offset !== undefined && !(NumberIsSafeInteger(offset) && offset >= 0)) throw new TypeErrorCtor("hub.read: offset must be a whole number of bytes, 0 or more");
		if (length !== undefined && !(NumberIsSafeInteger(length) && length > 0)) throw new TypeErrorCtor("hub.read: length must be a whole number of bytes, above 0");
		return stringify({ slice: true, offset: offset === undefined ? 0 : offset, length: length === undefined ? 0 : length });
	}
	const hub = {
		async search(query) {
			needValue(query, "hub.search");
			if (typeof query !== "string") throw new TypeErrorCtor("hub.search: the query must be a string");
			return search(query);
		},
		async describe(target) {
			needValue(target, "hub.describe");
			if (typeof target !== "string") throw new TypeErrorCtor("hub.describe: the target must be a string");
			return describe(target);
		},
		async read(handle, options) {
			needValue(handle, "hub.read");
			// The envelope's { handle, bytes, kind, preview } works as well as its handle.
			if (handle !== null && typeof handle === "object" && !ArrayIsArray(handle)) handle = handle.handle;
			needValue(handle, "hub.read");
			if (typeof handle !== "string" || handle === "") throw new TypeErrorCtor("hub.read: the handle must be a string such as \"h_...\" from an earlier result");
			return read(handle, readOptions(options));
		},
	};
	ObjectFreeze(hub);
	defineFixed("hub", hub);

	// Tool namespaces: frozen objects of async functions behind a Proxy that
	// names the closest tools when an unknown one is used.
	// A runtime is prepared before its run is known: the sandbox installs
	// the run's namespaces through internal.installNamespaces, once.
	const call = bridge.call;
	let allAddresses = null;

	function distance(a, b) {
		a = a.toLowerCase();
		b = b.toLowerCase();
		if (a.length > 64 || b.length > 64) return a === b ? 0 : 64;
		let prev = [];
		for (let j = 0; j <= b.length; j++) prev.push(j);
		for (let i = 1; i <= a.length; i++) {
			const cur = [i];
			for (let j = 1; j <= b.length; j++) {
				const cost = a[i - 1] === b[j - 1] ? 0 : 1;
				cur.push(Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost));
			}
			prev = cur;
		}
		return prev[b.length];
	}
	function closest(name, candidates, nameOf) {
		const scored = [];
		for (const c of candidates) {
			const n = nameOf(c);
			const d = distance(name, n);
			const threshold = Math.max(2, Math.floor(Math.max(name.length, n.length) / 3));
			const contains = name.length >= 3 && (n.toLowerCase().includes(name.toLowerCase()) || name.toLowerCase().includes(n.toLowerCase()));
			if (d <= threshold || contains) scored.push([contains ? Math.min(d, 1) : d, c]);
		}
		scored.sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
		return scored.slice(0, 3).map((s) => s[1]);
	}
	function unknownToolMessage(nsName, tools, name) {
		let near = closest(name, tools, (t) => t).map((t) => nsName + "." + t);
		if (near.length === 0) near = closest(name, allAddresses, (a) => a.slice(a.indexOf(".") + 1));
		let msg = nsName + "." + name + " is not a function: " + nsName + " has no tool named \"" + name + "\".";
		if (near.length > 0) msg += " Closest: " + near.join(", ") + ".";
		else if (tools.length > 0) msg += " Its tools: " + tools.slice(0, 8).map((t) => nsName + "." + t).join(", ") + (tools.length > 8 ? ", ..." : "") + ".";
		return msg + " Use hub.search to find tools.";
	}
	const passThrough = new SetCtor(["then", "toJSON", "catch", "finally", "inspect", "asymmetricMatch", "nodeType", "$$typeof"]);
	internal.installNamespaces = (namespaces) => {
		if (allAddresses !== null) throw new TypeErrorCtor("the namespaces are already installed");
		allAddresses = [];
		for (const ns of namespaces) for (const t of ns.tools) allAddresses.push(ns.name + "." + t);
		for (const ns of namespaces) installNamespace(ns);
	};
	function installNamespace(ns) {
		const nsName = ns.name;
		const tools = ns.tools.slice();
		const target = {};
		for (const tool of tools) {
			ObjectDefineProperty(target, tool, { value: toolFunction(nsName, tool), writable: false, enumerable: true, configurable: false });
		}
		// Known tools are own properties, found without a trap; only a name
		// the namespace lacks reaches the Proxy, its prototype, which
		// answers with a function that throws naming the closest tools, or,
		// in an open namespace (tools not listed yet), with one that calls
		// the host, which knows more by then.
		// Names on Object.prototype (toString, hasOwnProperty) resolve as on
		// any object.
		const open = ns.open === true;
		const unknown = new ProxyCtor(ObjectFreeze({}), {
			get(t, key, receiver) {
				if (typeof key !== "string" || key in t || passThrough.has(key)) return ReflectGet(t, key, receiver);
				if (open) return ObjectFreeze(toolFunction(nsName, key));
				const message = unknownToolMessage(nsName, tools, key);
				return ObjectFreeze({ [key]() { throw new TypeErrorCtor(message); } }[key]);
			},
		});
		ObjectSetPrototypeOf(target, unknown);
		ObjectFreeze(target);
		defineFixed(nsName, target);
	}
	function toolFunction(nsName, tool) {
		const address = nsName + "." + tool;
		// Not async: validation failures reject, and a valid call returns
		// the bridge's promise directly, without an extra async frame.
		const fn = {
			[tool](args, options) {
				let connection = "";
				let json;
				let flags = 0;
				try {
					if (options !== undefined) {
						needValue(options, "options");
						if (options === null || typeof options !== "object" || ArrayIsArray(options)) {
							throw new TypeErrorCtor(address + ": the second argument must be an object such as { connection: \"work\" }");
						}
						const keys = ObjectKeys(options);
						for (let i = 0; i < keys.length; i++) {
							if (keys[i] !== "connection") throw new TypeErrorCtor(address + ": unknown option \"" + keys[i] + "\"; the only option is connection");
						}
						const c = options.connection;
						needValue(c, "connection");
						if (c !== undefined) {
							if (typeof c !== "string") throw new TypeErrorCtor(address + ": connection must be a string");
							connection = c;
						}
					}
					if (args === undefined) json = "{}";
					else if (planning()) {
						// A placeholder may be in the arguments: they are
						// written as symbolic JSON, which flags says.
						const out = symbolic(args);
						json = out[0];
						flags = out[1];
					} else json = stringify(args);
					if (typeof json !== "string") throw new TypeErrorCtor(address + ": the first argument must be a JSON value");
				} catch (e) {
					return ReflectApply(PromiseReject, PromiseCtor, [e]);
				}
				return call(address, json, connection, flags);
			},
		}[tool];
		return fn;
	}
})
