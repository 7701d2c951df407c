// capture.cjs lists the tools of the reference MCP servers over stdio and
// saves them as fixtures (testdata/live/<server>.json).
//
// Run from the repository root:
//
//	node hub/tsgen/testdata/capture.cjs
//
// It resolves the servers and the MCP SDK from testdata/npm/node_modules.
"use strict";

const path = require("node:path");
const fs = require("node:fs");
const os = require("node:os");
const { createRequire } = require("node:module");

const root = path.resolve(__dirname, "..", "..", "..");
const npm = path.join(root, "testdata", "npm");
const req = createRequire(path.join(npm, "package.json"));
const { Client } = req("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = req("@modelcontextprotocol/sdk/client/stdio.js");

const bin = (name) => path.join(npm, "node_modules", ".bin", name);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "tsgen-capture-"));

const servers = [
	{ name: "everything", command: bin("mcp-server-everything"), args: ["stdio"] },
	{ name: "filesystem", command: bin("mcp-server-filesystem"), args: [scratch] },
	{ name: "memory", command: bin("mcp-server-memory"), args: [], env: { MEMORY_FILE_PATH: path.join(scratch, "memory.json") } },
];

async function capture(s) {
	const transport = new StdioClientTransport({
		command: s.command,
		args: s.args,
		env: { ...process.env, ...(s.env || {}) },
		stderr: "ignore",
	});
	const client = new Client({ name: "tsgen-capture", version: "0.0.0" });
	await client.connect(transport);
	const tools = [];
	let cursor;
	do {
		const page = await client.listTools(cursor ? { cursor } : {});
		tools.push(...page.tools);
		cursor = page.nextCursor;
	} while (cursor);
	await client.close();
	const out = path.join(__dirname, "live", s.name + ".json");
	fs.writeFileSync(out, JSON.stringify(tools, null, "\t") + "\n");
	console.log(`${s.name}: ${tools.length} tools -> ${path.relative(root, out)}`);
}

(async () => {
	try {
		for (const s of servers) await capture(s);
	} finally {
		fs.rmSync(scratch, { recursive: true, force: true });
	}
})().catch((err) => {
	console.error(err);
	process.exit(1);
});
