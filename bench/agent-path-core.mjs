// What a question of bench/agent-path-questions.json costs an agent that takes its ideal path:
// run by bench/agent-path.mjs against the built server, and by test/agent-path.test.ts (three
// questions) against the sources. It takes a connected SDK Client, so both pick their transport.
//
// Two views, as clients hand them to a model (docs/tools.md): the text content, and the JSON of
// structuredContent, compact. A result without structuredContent (an error) is shown as its text
// in both, since that is all such a client has to show.

/** The text a text-view client hands the model: every text block, one per line. */
export function textView(result) {
  return (result.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

/** The JSON a structured-view client hands the model. */
export function jsonView(result) {
  return result.structuredContent === undefined ? textView(result) : JSON.stringify(result.structuredContent);
}

/** Which facts (each a list of alternatives) no alternative of is in `view`, and which absent strings are. */
export function checkFacts(view, facts, absent = []) {
  const missing = facts.filter((alternatives) => !alternatives.some((alternative) => view.includes(alternative))).map((alternatives) => alternatives[0]);
  const wrong = absent.filter((text) => view.includes(text));
  return { ok: missing.length === 0 && wrong.length === 0, missing, wrong };
}

/**
 * Runs a question's calls one after another, as an agent would, and measures what it read: the
 * number of calls, the characters of each view summed over them, and whether the facts are in
 * what the calls returned together (an answer may draw on any of them).
 */
export async function runQuestion(client, question) {
  const texts = [];
  const jsons = [];
  const errors = [];
  for (const [name, args] of question.calls) {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) errors.push(`${name}: ${textView(result).slice(0, 200)}`);
    texts.push(textView(result));
    jsons.push(jsonView(result));
  }
  const text = texts.join('\n');
  const json = jsons.join('\n');
  return {
    id: question.id,
    calls: question.calls.length,
    textChars: text.length,
    jsonChars: json.length,
    text: checkFacts(text, question.facts, question.absent),
    json: checkFacts(json, question.facts, question.absent),
    errors,
  };
}

const mark = (check) => (check.ok ? 'yes' : `**no**: ${[...check.missing.map((m) => `missing "${m}"`), ...check.wrong.map((w) => `wrongly "${w}"`)].join(', ')}`);
const number = (n) => n.toLocaleString('en-US');

/** The markdown table of runQuestion's rows, with their totals. */
export function table(rows) {
  const lines = ['| question | calls | text chars | JSON chars | facts in text | facts in JSON |', '|---|---:|---:|---:|---|---|'];
  for (const row of rows) lines.push(`| ${row.id} | ${row.calls} | ${number(row.textChars)} | ${number(row.jsonChars)} | ${mark(row.text)} | ${mark(row.json)} |`);
  const sum = (key) => rows.reduce((n, row) => n + row[key], 0);
  const answered = (view) => rows.filter((row) => row[view].ok).length;
  lines.push(`| **all ${rows.length}** | ${sum('calls')} | ${number(sum('textChars'))} | ${number(sum('jsonChars'))} | ${answered('text')} of ${rows.length} | ${answered('json')} of ${rows.length} |`);
  return lines.join('\n');
}
