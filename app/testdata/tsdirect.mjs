// Drives a direct-mode profile (`capabilities mcp --profile NAME`) with the
// official TypeScript SDK client: lists the tools, makes the calls given
// as a JSON array of {name, arguments}, and prints one JSON line on stdout
// with each tool's name and annotations and each call's isError, text and
// structuredContent. Usage: node tsdirect.mjs SDK_DIR BIN PROFILE CALLS
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdkDir, bin, profile, calls] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(sdkDir, p)).href);
const { Client } = await load("dist/esm/client/index.js");
const { StdioClientTransport } = await load("dist/esm/client/stdio.js");

const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--profile", profile], env: process.env, stderr: "inherit" });
const client = new Client({ name: "ts-sdk-direct", version: "1.0.0" });
await client.connect(transport);
const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("");
const tools = await client.listTools();
const results = [];
for (const c of JSON.parse(calls)) {
	const r = await client.callTool({ name: c.name, arguments: c.arguments });
	results.push({ isError: r.isError ?? false, text: text(r), structuredContent: r.structuredContent ?? null });
}
process.stdout.write(JSON.stringify({
	tools: tools.tools.map((t) => ({ name: t.name, annotations: t.annotations ?? null })),
	instructions: client.getInstructions() ?? "",
	results,
}) + "\n");
await client.close();
