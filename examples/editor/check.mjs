// Drives yaml-language-server over LSP (stdio) against toolwright's four
// editor schemas: the shipped files give no diagnostics, files with mistakes
// get them (an unknown step kind reads "unknown step kind"), and completion
// inside a step offers the kinds and a kind's fields, with their titles.
//
// Usage: node check.mjs SCHEMA_DIR REPO_ROOT   (check.sh does this)
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [schemaDir, repo] = process.argv.slice(2).map((p) => resolve(p));
const server = spawn(process.execPath, [join(import.meta.dirname, 'node_modules/yaml-language-server/bin/yaml-language-server'), '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });

let buf = Buffer.alloc(0);
let nextId = 1;
const pending = new Map();
const diagnostics = new Map();
const diagWaiters = new Map();
server.stdout.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const head = buf.indexOf('\r\n\r\n');
    if (head < 0) return;
    const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString())[1]);
    if (buf.length < head + 4 + len) return;
    const msg = JSON.parse(buf.subarray(head + 4, head + 4 + len).toString());
    buf = buf.subarray(head + 4 + len);
    onMessage(msg);
  }
});

function send(msg) {
  const body = JSON.stringify({ jsonrpc: '2.0', ...msg });
  server.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}
function request(method, params) {
  const id = nextId++;
  send({ id, method, params });
  return new Promise((res, rej) => {
    pending.set(id, { res, rej });
    setTimeout(() => rej(new Error(`${method}: no answer in 20s`)), 20000).unref();
  });
}
const notify = (method, params) => send({ method, params });

function onMessage(msg) {
  if (process.env.LSP_DEBUG) console.error('<-', JSON.stringify(msg).slice(0, 300));
  if (msg.id !== undefined && pending.has(msg.id) && msg.method === undefined) {
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    msg.error ? p.rej(new Error(msg.error.message)) : p.res(msg.result);
    return;
  }
  if (msg.method === 'textDocument/publishDiagnostics') {
    diagnostics.set(msg.params.uri, msg.params.diagnostics);
    diagWaiters.get(msg.params.uri)?.(msg.params.diagnostics);
    return;
  }
  if (msg.id !== undefined && msg.method) {
    // server → client requests: configuration, registration, work done progress
    let result = null;
    if (msg.method === 'workspace/configuration') {
      result = msg.params.items.map((it) => (it.section === 'yaml' ? settings.yaml : it.section === 'http' ? {} : null));
    }
    send({ id: msg.id, result });
    if (msg.method === 'workspace/configuration') configured();
  }
}

const schema = (name) => pathToFileURL(join(schemaDir, `${name}.schema.json`)).href;
const settings = {
  yaml: {
    validate: true, completion: true, hover: true, format: { enable: false },
    schemaStore: { enable: false },
    schemas: {
      [schema('workflow')]: ['**/workflows/*.yaml', '**/mistakes/workflow_*.yaml'],
      [pathToFileURL(join(schemaDir, 'project', 'workflow.schema.json')).href]: ['**/_project/flows/*.yaml'],
      [schema('selectors')]: ['**/selectors/selectors.yaml', '**/demo/selectors.yaml', '**/realsite/selectors.yaml'],
      [schema('config')]: ['**/toolwright.yaml'],
      [schema('test')]: ['**/tests/*.yaml'],
    },
  },
};

let version = 0;
function open(path, text) {
  const uri = pathToFileURL(path).href;
  const done = new Promise((res) => diagWaiters.set(uri, res));
  notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: ++version, text } });
  return { uri, diagnostics: Promise.race([done, new Promise((r) => setTimeout(() => r(null), 15000))]) };
}

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.yaml')) out.push(p);
  }
  return out;
}

let failures = 0;
const fail = (m) => { failures++; console.log(`FAIL ${m}`); };
const pass = (m) => console.log(`ok   ${m}`);

await request('initialize', {
  processId: process.pid, rootUri: pathToFileURL(repo).href,
  capabilities: { workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } },
    textDocument: { completion: { completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] } }, publishDiagnostics: {} } },
  initializationOptions: {},
});
let configured;
const configDone = new Promise((r) => { configured = r; });
notify('initialized', {});
notify('workspace/didChangeConfiguration', { settings });
await Promise.race([configDone, new Promise((r) => setTimeout(r, 5000))]);
await new Promise((r) => setTimeout(r, 300)); // the server applies the settings

// 1. Shipped files: no diagnostics.
const shipped = [
  ...walk(join(repo, 'workflows')), join(repo, 'selectors/selectors.yaml'),
  ...walk(join(repo, 'examples')).filter((p) => /\/(workflows|tests)\/[^/]+\.yaml$|\/toolwright\.yaml$|selectors\.yaml$/.test(p)),
];
for (const p of shipped) {
  const d = await open(p, readFileSync(p, 'utf8')).diagnostics;
  const rel = p.slice(repo.length + 1);
  if (d === null) fail(`${rel}: no diagnostics were published (is a schema mapped to it?)`);
  else if (d.length > 0) fail(`${rel}: ${d.map((x) => `${x.range.start.line + 1}:${x.range.start.character + 1} ${x.message}`).join('; ')}`);
}
pass(`${shipped.length} shipped files: no diagnostics`);

// 2. Files with mistakes get them.
const mistakes = [
  { name: 'workflows/clik.yaml', text: 'name: clik\ndescription: d\nsteps:\n  - clik: acme.login.submit\n', want: /unknown step kind/ , line: 4 },
  { name: 'workflows/maximum.yaml', text: 'name: maximum\ndescription: d\nparams:\n  n: {type: integer, description: n, min: 1, maximum: 3}\nsteps:\n  - goto: http://127.0.0.1/\n', want: /maximum/i, line: 4 },
  { name: 'workflows/nokind.yaml', text: 'name: nokind\ndescription: d\nsteps:\n  - name: just a label\n', want: /needs exactly one kind/, line: 4 },
  { name: 'workflows/wait_field.yaml', text: 'name: wait_field\ndescription: d\nsteps:\n  - goto: {url: http://127.0.0.1/, wait: load}\n', want: /wait/, line: 4 },
  { name: 'selectors/selectors.yaml', text: 'acme.a:\n  csss: a\n', want: /csss/, line: 2 },
  { name: 'toolwright.yaml', text: 'limits:\n  max_loop: lots\n', want: /integer|type/i, line: 2 },
  { name: 'tests/t.yaml', text: 'cases:\n  - name: a\n    tool: x\n    expct: {ok: true}\n', want: /expct/, line: 4 },
];
for (const m of mistakes) {
  const d = await open(join(repo, 'examples/editor/_mistakes', m.name), m.text).diagnostics;
  const hit = (d || []).find((x) => m.want.test(x.message) && x.range.start.line + 1 === m.line);
  if (!hit) fail(`${m.name}: want a diagnostic on line ${m.line} matching ${m.want}, got ${JSON.stringify((d || []).map((x) => [x.range.start.line + 1, x.message]))}`);
  else pass(`${m.name}:${m.line}: ${hit.message.split('\n')[0]}`);
}

// 3. Completion inside a step offers the kinds, and a kind's fields.
async function complete(name, text, line, character) {
  const { uri } = open(join(repo, 'examples/editor/_completion', name), text);
  const res = await request('textDocument/completion', { textDocument: { uri }, position: { line, character } });
  return (Array.isArray(res) ? res : res?.items || []);
}
const kinds = await complete('workflows/kinds.yaml', 'name: kinds\ndescription: d\nsteps:\n  - goto: http://127.0.0.1/\n  - \n', 4, 4);
const labels = kinds.map((i) => i.label);
const wantKinds = ['goto', 'click', 'fill', 'wait', 'extract', 'paginate'];
const missing = wantKinds.filter((k) => !labels.includes(k));
if (missing.length) fail(`completion in a step lacks kinds ${missing.join(', ')}: got ${labels.join(', ')}`);
else {
  const click = kinds.find((i) => i.label === 'click');
  const doc = typeof click.documentation === 'string' ? click.documentation : click.documentation?.value || '';
  if (!doc && !click.detail) fail('completion item click has no documentation');
  else pass(`completion in a step offers ${labels.length} items incl. ${wantKinds.join(', ')} (click: ${(doc || click.detail).split('\n')[0]})`);
}
const fields = await complete('workflows/fields.yaml', 'name: fields\ndescription: d\nsteps:\n  - fill:\n      \n', 4, 6);
const fl = fields.map((i) => i.label);
if (!fl.includes('target') || !fl.includes('value')) fail(`completion inside fill lacks target/value: got ${fl.join(', ')}`);
else pass(`completion inside fill offers ${fl.join(', ')}`);

// 4. A project's schemas (written once, as init does) take a target added
// to the selector map afterwards: no schema step by hand. A CSS selector
// written where a target goes is still flagged.
{
  const fresh = await open(join(repo, 'examples/editor/_project/flows/new_target.yaml'),
    'name: new_target\ndescription: d\nsteps:\n  - goto: http://127.0.0.1/\n  - click: acme.login.sign_in_with_sso\n').diagnostics;
  if (fresh === null) fail('project schema: no diagnostics were published for _project/flows/new_target.yaml');
  else if (fresh.length > 0) fail(`project schema flags a new target: ${fresh.map((x) => x.message).join('; ')}`);
  else pass('project schema: a target added to the map after the schemas were written is accepted');
  const css = await open(join(repo, 'examples/editor/_project/flows/css_target.yaml'),
    'name: css_target\ndescription: d\nsteps:\n  - click: "#sign-in button"\n').diagnostics;
  if (!css || !css.some((x) => x.range.start.line + 1 === 4)) fail(`project schema: a CSS selector as a target is not flagged: ${JSON.stringify(css)}`);
  else pass('project schema: a CSS selector where a target goes is flagged');
  const offered = await complete('../_project/flows/offer.yaml', 'name: offer\ndescription: d\nsteps:\n  - click: \n', 3, 11);
  if (!offered.some((i) => i.label === 'acme.login.submit')) fail(`project schema: completion does not offer the map's targets: ${offered.map((i) => i.label).slice(0, 8).join(', ')}`);
  else pass(`project schema: completion offers the map's targets (${offered.length} items)`);
}

await request('shutdown', null).catch(() => {});
notify('exit', null);
server.kill();
console.log(failures ? `${failures} failed` : 'all editor checks passed');
process.exit(failures ? 1 : 0);
