// Drives `capabilities mcp` with the official TypeScript SDK client: lists
// the tools, then calls search, describe and execute, and prints what came
// back as JSON on stdout. Usage: node tsclient.mjs SDK_DIR BIN CODE
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdkDir, bin, code] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(sdkDir, p)).href);
const { Client } = await load("dist/esm/client/index.js");
const { StdioClientTransport } = await load("dist/esm/client/stdio.js");

const transport = new StdioClientTransport({ command: bin, args: ["mcp"], env: process.env, stderr: "inherit" });
const client = new Client({ name: "ts-sdk-test", version: "1.0.0" });
await client.connect(transport);
const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("");
const tools = await client.listTools();
const search = await client.callTool({ name: "search", arguments: { query: "add two numbers" } });
const describe = await client.callTool({ name: "describe", arguments: { targets: ["everything.getSum"] } });
const execute = await client.callTool({ name: "execute", arguments: { code } });
let resumed = null;
const env = execute.structuredContent;
if (env && env.status === "awaiting_approval") {
	// Wait for the test to approve from the CLI, signalled on stdin.
	process.stdout.write(JSON.stringify({ awaiting: env.runId }) + "\n");
	await new Promise((r) => process.stdin.once("data", r));
	resumed = await client.callTool({ name: "execute", arguments: { resume: env.runId } });
}
process.stdout.write(JSON.stringify({
	protocol: client.getServerVersion() ? "ok" : "none",
	tools: tools.tools.map((t) => t.name),
	search: text(search),
	describe: text(describe),
	execute: execute.structuredContent,
	resumed: resumed && resumed.structuredContent,
}) + "\n");
await client.close();
