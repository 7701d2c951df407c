// Counts the tokens of texts with Claude's tokenizer (@anthropic-ai/tokenizer):
// reads a JSON array of strings on stdin, writes a JSON array of counts.
const { countTokens } = require("@anthropic-ai/tokenizer");
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
	const texts = JSON.parse(input);
	process.stdout.write(JSON.stringify(texts.map((t) => countTokens(t))));
});
