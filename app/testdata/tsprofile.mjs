// Drives `capabilities mcp --profile NAME` with the official TypeScript SDK
// client: prints, as one JSON line on stdout, the tools it lists, the
// server's instructions, and the text of search and of execute. Usage:
// node tsprofile.mjs SDK_DIR BIN PROFILE QUERY CODE
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdkDir, bin, profile, query, code] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(sdkDir, p)).href);
const { Client } = await load("dist/esm/client/index.js");
const { StdioClientTransport } = await load("dist/esm/client/stdio.js");

const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--profile", profile], env: process.env, stderr: "inherit" });
const client = new Client({ name: "ts-sdk-profile", version: "1.0.0" });
await client.connect(transport);
const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("");
const tools = await client.listTools();
const search = await client.callTool({ name: "search", arguments: { query } });
const execute = await client.callTool({ name: "execute", arguments: { code } });
process.stdout.write(JSON.stringify({
	tools: tools.tools.map((t) => t.name),
	instructions: client.getInstructions() ?? "",
	search: text(search),
	execute: execute.structuredContent,
}) + "\n");
await client.close();
