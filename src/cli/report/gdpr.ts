import { inventoryReport, requireReport, type Inventory, type RequireVerdict } from '../../gdpr/report.js';
import { pointerLabel } from '../../validator/index.js';
import { UsageError } from '../errors.js';
import { clean, type Colours, type Out } from '../output.js';
import { about, reportFormats, type CiFormat, type GateFormat, type ViewFormatter } from './emit.js';

/*
 * gdpr's formats: the inventory and the --require gate (src/gdpr/report.ts computes both), each
 * rendered with the formatter of the format asked for (INVENTORY_FORMATS, REQUIRE_FORMATS): text
 * and json are gdpr's own, the others render its Report.
 */

const label = pointerLabel;

async function inventoryJson(inventory: Inventory, out: Out): Promise<void> {
  const { urns, summary } = inventory;
  out.line(JSON.stringify({ ok: true, summary, urns: urns.map(({ urn, fields }) => ({ urn, fields })) }, null, 2));
}

async function inventoryText(inventory: Inventory, out: Out, c: Colours): Promise<void> {
  const { urns, summaryLine } = inventory;
  for (const { urn, file, fields } of urns) {
    out.line(`${c.bold(clean(urn))}  ${c.dim(clean(file))}`);
    if (fields.length === 0) out.line(`    ${c.dim('no sensitive fields')}`);
    // Field names and categories come from the schema: escaped like every other input.
    const width = Math.max(0, ...fields.map((f) => clean(label(f.path)).length));
    for (const { path, category } of fields) out.line(`    ${clean(label(path)).padEnd(width)}  ${category === '' ? c.dim('(no category)') : clean(category)}`);
  }
  out.line(`\n${summaryLine}`);
}

async function requireJson(verdict: RequireVerdict, out: Out): Promise<void> {
  const { findings, ok, summary } = verdict;
  out.line(JSON.stringify({ ok, summary, findings }, null, 2));
}

async function requireText(verdict: RequireVerdict, out: Out, c: Colours): Promise<void> {
  const { findings, ok, summaryLine: line } = verdict;
  for (const { urn, path } of findings) out.line(`${clean(urn)}: ${c.red(clean(path))}`);
  out.line(`${ok ? '' : '\n'}${ok ? c.green(line) : c.red(line)}`);
}

/** SARIF and JUnit report the --require gate; the inventory has none (refused before any work is done). */
const gateOnly = (format: CiFormat): ViewFormatter<Inventory> => () => {
  throw new UsageError(`--format ${format} reports the --require gate: add --require`);
};

export const INVENTORY_FORMATS: Record<GateFormat, ViewFormatter<Inventory>> = {
  ...reportFormats((i: Inventory) => inventoryReport(i, about())), text: inventoryText, json: inventoryJson, sarif: gateOnly('sarif'), junit: gateOnly('junit'),
};

export const REQUIRE_FORMATS: Record<GateFormat, ViewFormatter<RequireVerdict>> = {
  text: requireText, json: requireJson, ...reportFormats((v: RequireVerdict) => requireReport(v, about())),
};
