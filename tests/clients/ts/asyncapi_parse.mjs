// Run by tests/clients/test_contract_lint.py: the AsyncAPI project's own parser (@asyncapi/parser, pinned in
// clients/package.json) on one document; prints its diagnostics as one JSON line
// ({"parsed": bool, "diagnostics": [{severity, code, path, message}]}, severity 0 error, 1 warning, 2 info, 3 hint).
//
//     node asyncapi_parse.mjs CLIENTS_DIR DOCUMENT
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [clients, documentPath] = process.argv.slice(2);
const { Parser } = createRequire(join(clients, "package.json"))("@asyncapi/parser");
const { document, diagnostics } = await new Parser().parse(readFileSync(documentPath, "utf8"));
console.log(JSON.stringify({
  parsed: document !== undefined,
  diagnostics: diagnostics.map((d) => ({ severity: d.severity, code: String(d.code), path: d.path.join("/"), message: d.message })),
}));
