// Drives `capabilities mcp` with the official TypeScript SDK client: makes
// the tool calls given as a JSON array of { name, arguments } in order and
// prints, as one JSON line on stdout, what each returned: its structured
// content, its text and isError. The SDK checks each structured content
// against the tool's output schema. Usage: node tscalls.mjs SDK_DIR BIN CALLS
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdkDir, bin, calls] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(sdkDir, p)).href);
const { Client } = await load("dist/esm/client/index.js");
const { StdioClientTransport } = await load("dist/esm/client/stdio.js");

const transport = new StdioClientTransport({ command: bin, args: ["mcp"], env: process.env, stderr: "inherit" });
const client = new Client({ name: "ts-sdk-test", version: "1.0.0" });
await client.connect(transport);
await client.listTools(); // the output schemas the SDK validates against
const out = [];
for (const c of JSON.parse(calls)) {
	const r = await client.callTool(c);
	out.push({
		structured: r.structuredContent ?? null,
		text: r.content.filter((x) => x.type === "text").map((x) => x.text).join(""),
		isError: r.isError === true,
	});
}
process.stdout.write(JSON.stringify(out) + "\n");
await client.close();
