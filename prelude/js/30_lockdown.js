// Lockdown: remove every way to compile code at run time and every global
// the sandbox does not offer. Runs last, after the other prelude files have
// captured what they need.
(function (bridge, cfg, internal) {
	"use strict";
	const ObjectDefineProperty = Object.defineProperty;
	const ObjectGetPrototypeOf = Object.getPrototypeOf;
	const ObjectFreeze = Object.freeze;
	const TypeErrorCtor = TypeError;

	const FunctionPrototype = Function.prototype;
	const AsyncFunctionPrototype = ObjectGetPrototypeOf(async function () { });
	const GeneratorFunctionPrototype = ObjectGetPrototypeOf(function* () { });

	// Stands in for Function, AsyncFunction and GeneratorFunction wherever
	// they are reachable: the global binding and .constructor on each
	// function prototype. instanceof Function keeps working.
	const blocked = function Function() {
		throw new TypeErrorCtor("the Function constructor is not available in the sandbox");
	};
	ObjectDefineProperty(blocked, "prototype", { value: FunctionPrototype, writable: false, enumerable: false, configurable: false });
	ObjectFreeze(blocked);
	for (const proto of [FunctionPrototype, AsyncFunctionPrototype, GeneratorFunctionPrototype]) {
		ObjectDefineProperty(proto, "constructor", { value: blocked, writable: false, enumerable: false, configurable: false });
	}
	const noEval = {
		eval() {
			throw new TypeErrorCtor("eval is not available in the sandbox");
		},
	}.eval;
	ObjectFreeze(noEval);
	for (const [name, value] of [["Function", blocked], ["eval", noEval]]) {
		ObjectDefineProperty(globalThis, name, { value, writable: false, enumerable: false, configurable: false });
	}
	for (const name of ["GoError", "fetch", "require", "process", "Buffer", "URL", "URLSearchParams", "module", "exports", "setInterval", "clearInterval", "setImmediate", "queueMicrotask"]) {
		delete globalThis[name];
	}
})
