// Checks Mini App launch data the way a bot's Node backend does, with
// @telegram-apps/init-data-node (pinned in package.json). Reads {initData, token} as JSON
// on stdin, prints {valid, error, parsed} as JSON.
import { parse, validate } from "@telegram-apps/init-data-node";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { initData, token } = JSON.parse(input);
const out = { valid: false, error: null, parsed: null };
try {
  validate(initData, token);
  out.valid = true;
  out.parsed = parse(initData);
} catch (e) {
  out.error = `${e.name}: ${e.message}`;
}
process.stdout.write(JSON.stringify(out));
